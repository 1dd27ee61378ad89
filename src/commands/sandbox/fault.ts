// `orc sandbox fault add|list|remove|clear`: faults the sandbox injects into its own answers.
import type { ArgsOf, FlagsOf } from '../define.js';
import type { Context } from '../context.js';
import { parseDuration } from '../../lib/duration.js';
import { UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import {
  faultEffects,
  type Fault,
  type FaultList,
  type FaultParams,
  type FaultRemoved,
  type FaultsCleared,
} from '../../contract/sandbox-control.js';
import { adminCall } from './admin-call.js';
import type { faultAdd, faultRemove } from './command.js';

const describe = (f: Fault) =>
  [f.id, f.route ?? `webhook ${f.webhook}`, ...faultEffects(f), `applied ${f.applied}`].map(oneLine).join('\t');

export async function add(ctx: Context, _args: [], flags: FlagsOf<typeof faultAdd>): Promise<number> {
  if (!flags.route === !flags.webhook)
    throw new UsageError("give --route 'METHOD /path' or --webhook <id> (one of them)");
  const latency =
    flags.latency === undefined
      ? undefined
      : parseDuration(flags.latency.replace(/ms$/, '').trim() === flags.latency ? flags.latency : flags.latency);
  if (latency === null)
    throw new UsageError(`--latency must be a duration (300ms, 2s), not ${JSON.stringify(flags.latency)}`);
  const probability = flags.probability === undefined ? undefined : Number(flags.probability);
  if (probability !== undefined && !(probability >= 0 && probability <= 1))
    throw new UsageError(`--probability must be a number from 0 to 1, not ${JSON.stringify(flags.probability)}`);
  const f = await adminCall<Fault>(ctx, 'POST', '/_sandbox/faults', {
    ...(flags.route ? { route: flags.route } : {}),
    ...(flags.webhook ? { webhook: flags.webhook } : {}),
    ...(flags.status ? { status: Number(flags.status) } : {}),
    ...(latency !== undefined ? { latency_ms: Math.round(latency) } : {}),
    ...(flags.reset ? { reset: true } : {}),
    ...(flags.cutAfter !== undefined ? { cut_after: flags.cutAfter } : {}),
    ...(flags.times !== undefined ? { times: flags.times } : {}),
    ...(probability !== undefined ? { probability } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
  } satisfies FaultParams);
  if (ctx.io.json) return (ctx.io.writeJson(f), 0);
  ctx.io.out(oneLine(f.id));
  ctx.io.info(`added: ${describe(f)}`);
  return 0;
}

export async function list(ctx: Context): Promise<number> {
  const { data } = await adminCall<FaultList>(ctx, 'GET', '/_sandbox/faults');
  if (ctx.io.json) return (ctx.io.writeJson(data), 0);
  for (const f of data) ctx.io.out(describe(f));
  if (data.length === 0) ctx.io.info('no faults');
  return 0;
}

export async function remove(ctx: Context, [id]: ArgsOf<typeof faultRemove>): Promise<number> {
  const out = await adminCall<FaultRemoved>(ctx, 'DELETE', `/_sandbox/faults/${encodeURIComponent(id)}`);
  if (ctx.io.json) return (ctx.io.writeJson(out), 0);
  ctx.io.info(`removed ${id}`);
  return 0;
}

export async function clear(ctx: Context): Promise<number> {
  const out = await adminCall<FaultsCleared>(ctx, 'DELETE', '/_sandbox/faults');
  if (ctx.io.json) return (ctx.io.writeJson(out), 0);
  ctx.io.info('every fault removed');
  return 0;
}
