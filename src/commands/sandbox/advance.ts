// `orc sandbox advance [<run>] [--by <duration>] [--to <stage>|gate:<name>|end]`: moves the sandbox's
// time, or one run alone, firing what falls due in order.
import type { ArgsOf, FlagsOf } from '../define.js';
import type { Context } from '../context.js';
import { parseDuration } from '../../lib/duration.js';
import { RefusedError, UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import type { AdvanceParams, AdvanceResult } from '../../contract/sandbox-control.js';
import { adminCall, clockLine } from './admin-call.js';
import type { advance as def } from './command.js';

export default async function advance(
  ctx: Context,
  [run]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  if (flags.by === undefined && flags.to === undefined)
    throw new UsageError('give --by <duration>, or a run and --to <stage|gate:NAME|end>');
  if (flags.to !== undefined && run === undefined)
    throw new UsageError('--to moves one run: orc sandbox advance <run> --to …');
  const by = flags.by === undefined ? undefined : parseDuration(flags.by);
  if (by === null)
    throw new UsageError(
      `--by must be a duration (90s, 15m, 3h, 2d, or plain seconds), not ${JSON.stringify(flags.by)}`,
    );
  const out = await adminCall<AdvanceResult>(ctx, 'POST', '/_sandbox/clock/advance', {
    ...(run !== undefined ? { run } : {}),
    ...(by !== undefined ? { by } : {}),
    ...(flags.to !== undefined ? { to: flags.to } : {}),
  } satisfies AdvanceParams);
  if (ctx.io.json) ctx.io.writeJson(out);
  else if (out.run) {
    const r = out.run;
    ctx.io.out(
      [r.id, r.status, r.stage, r.gate_pending ? `gate ${r.gate_pending}` : ''].map(oneLine).join('\t').trimEnd(),
    );
    ctx.io.info(
      `${oneLine(r.id)} moved ${out.ticks} tick${out.ticks === 1 ? '' : 's'}; now ${oneLine(r.status)} at ${oneLine(r.stage)}`,
    );
  } else {
    ctx.io.out(oneLine(clockLine(out)));
    ctx.io.info(`fired ${out.fired ?? 0} timer${out.fired === 1 ? '' : 's'}`);
  }
  if (out.reached === false)
    throw new RefusedError(
      `${out.run!.id} did not reach ${flags.to}: it is ${out.run!.status} at ${out.run!.stage}${out.run!.gate_pending ? `, waiting at gate ${out.run!.gate_pending}` : ''}`,
    );
  return 0;
}
