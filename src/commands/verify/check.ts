// `orc verify`: probes that the target is the service at all (one clear line and stop if not), then runs the
// read-only checks, and prints every divergence grouped by operation (or, with --json, the VerifyReport).
// Exit 0 when nothing diverges, 3 when something does.
import type { Api } from '../../api/index.js';
import type { RawAnswer } from '../../api/http.js';
import { errorEnvelope } from '../../contract/shapes.js';
import { ConfigError, EXIT, FailedError, UsageError } from '../../exit/errors.js';
import { sanitizeLine } from '../../lib/sanitize.js';
import type { Context } from '../context.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { verify as def } from './command.js';
import { loadSchemas } from '../../api/http.js';
import {
  checkErrors,
  checkLimits,
  checkRun,
  checkRunList,
  checkWaitingRun,
  checkWebhooks,
  ended,
  pickRun,
  skipRunChecks,
  waitingRun,
} from './reads.js';
import { checkStream } from './stream.js';
import { limited } from './judge.js';
import type { Divergence, Probe, VerifyReport } from './types.js';
import { interrupted, refuseLiveUnlessMeant, type WriteOptions, writeChecks } from './write.js';

export default async function verify(ctx: Context, _args: ArgsOf<typeof def>, flags: FlagsOf<typeof def>) {
  if (flags.yes && !flags.write) throw new UsageError('--yes goes with --write (it means a live write): add --write');
  const target = await ctx.target();
  const said = { live: flags.live === true, yes: flags.yes === true };
  if (flags.write) refuseLiveUnlessMeant(target.key, said);
  const api = await ctx.api();
  // --write waits up to a minute for deliveries: each request gets the whole --timeout, not what is left of it.
  if (flags.write) api.http.deadlinePerRequest();
  const report: VerifyReport = { target: target.baseUrl, checked: [], divergences: [], skipped: [], wrote: false };
  const probe = probeOf(ctx, api, report);
  try {
    await checks(probe, target.baseUrl, flags.write ? { ...said, signal: ctx.signal } : null);
    report.wrote = flags.write === true;
  } catch (err) {
    // A request cut by Ctrl-C ends as an AbortError: to the user it is the interrupt (exit 130).
    throw ctx.signal.aborted ? interrupted() : err;
  }
  print(ctx, report);
  return report.divergences.length ? EXIT.refused : EXIT.ok;
}

/** The read-only checks, then (given `write`) the --write ones, all reported through the probe. */
async function checks(probe: Probe, baseUrl: string, write: WriteOptions | null): Promise<void> {
  const first = await probe.raw('GET', '/v1/runs?limit=100');
  assertService(first, baseUrl);
  const s = await loadSchemas();
  probe.say(`checking ${baseUrl} against the contract…`);
  const found = await checkRunList(probe, s, first);
  await checkErrors(probe, s);
  await checkLimits(probe, s);
  const run = pickRun(found);
  if (run) await checkRun(probe, s, run);
  const waiting = waitingRun(found, run);
  if (waiting) await checkWaitingRun(probe, s, waiting);
  await checkWebhooks(probe, s);
  if (run) await checkStream(probe, s, run, ended(found.runs.find((r) => r.id === run)?.status));
  else skipRunChecks(probe, found);
  if (write) await writeChecks(probe, write);
}

/** Whether the target answers GET /v1/runs with the key as the service does: a JSON list envelope. If not, what
 * came is no list of divergences: it is one line, and verify stops. */
function assertService(first: RawAnswer, baseUrl: string): void {
  let body: unknown;
  try {
    body = JSON.parse(first.text);
  } catch {
    body = undefined;
  }
  const where = `${sanitizeLine(baseUrl)} is not the Run Orchestration Service`;
  const type = String(first.headers['content-type'] ?? 'no content type').split(';')[0] ?? '';
  if (limited(first))
    throw new FailedError(
      `${sanitizeLine(baseUrl)} is rate-limiting this key (HTTP ${first.status} to GET /v1/runs, after waiting): nothing could be checked`,
      'Try again later, or ask for a higher limit.',
    );
  if (first.status === 401 || first.status === 403) {
    const code = errorEnvelope(body)?.code;
    throw new ConfigError(`${sanitizeLine(baseUrl)} refused the key (HTTP ${first.status}${code ? ` ${code}` : ''})`);
  }
  const list = body as { data?: unknown } | undefined;
  if (first.status !== 200 || !list || !Array.isArray(list.data))
    throw new FailedError(
      `${where}: GET /v1/runs answered HTTP ${first.status} (${sanitizeLine(type)}), not a JSON list of runs`,
    );
}

/** The Probe every check reports through, filling `report`. */
function probeOf(ctx: Context, api: Api, report: VerifyReport): Probe {
  const seen = new Set<string>();
  const progress = !ctx.io.json && ctx.io.stderrIsTTY;
  return {
    api,
    baseUrl: report.target,
    signal: ctx.signal,
    raw: (method, path, opts = {}) => {
      const [target, query = ''] = path.split('?');
      return api.http.raw({
        method,
        target: target!,
        query: Object.fromEntries(new URLSearchParams(query)),
        headers: { accept: 'application/json', ...opts.headers },
        ...(opts.body !== undefined ? { body: { json: opts.body } } : {}),
        anyStatus: true,
        // A 429 or 503 says when to come back: waited out as the CLI does, and never a divergence.
        retryLimitsOnly: true,
        ...(opts.undo ? {} : { signal: ctx.signal }),
      });
    },
    checked: (op) => void (report.checked.includes(op) || report.checked.push(op)),
    diverge: (d) => {
      const key = JSON.stringify([d.operation, d.path, d.expected, d.got]);
      if (!seen.has(key)) seen.add(key), report.divergences.push(d);
    },
    skip: (operation, why) => void report.skipped.push({ operation, why }),
    say: (text) => progress && ctx.io.info(text),
    warn: (text) => ctx.io.warn(text),
  };
}

/** The report: as data under --json; else each divergence under its operation, then the count. */
function print(ctx: Context, report: VerifyReport): void {
  if (ctx.io.json) return ctx.io.writeJson(report);
  const byOp = new Map<string, Divergence[]>();
  for (const d of report.divergences) byOp.set(d.operation, [...(byOp.get(d.operation) ?? []), d]);
  for (const [op, list] of byOp) {
    ctx.io.out(sanitizeLine(op));
    for (const d of list)
      ctx.io.out(
        `  ${sanitizeLine(d.path)}: the contract says ${sanitizeLine(d.expected)}; came ${sanitizeLine(d.got)}`,
      );
  }
  for (const s of report.skipped) ctx.io.info(`skipped ${sanitizeLine(s.operation)}: ${sanitizeLine(s.why)}`);
  const n = report.checked.length;
  const m = report.divergences.length;
  const checks = `${n} check${n === 1 ? '' : 's'}`;
  ctx.io.out(m ? `${checks}, ${m} divergence${m === 1 ? '' : 's'}` : `${checks}: matches the contract`);
}
