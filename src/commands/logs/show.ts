// `orc logs <run>`: the run's log lines from its event stream (the watch engine: reconnects and all), whole
// (nothing cut, as the live view must), by stage, or the failing stage and its error. Text or NDJSON.
import type { ArgsOf, FlagsOf } from '../define.js';
import { compareStages, TERMINAL_STATUSES } from '../../contract/events.js';
import type { Event } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { EXIT, UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import { loadStyle } from '../../ui/style.js';
import { watchRun } from '../../watch/engine.js';
import type { logs as spec } from './command.js';
import { pickRun } from '../pick.js';
import { streamKnobs } from '../watch/follow.js';

interface Line {
  type: 'log';
  seq: number | null;
  stage: string;
  level: string;
  message: string;
  ts: string;
}

/** Without --follow, a run still moving: its replayed history is taken to be over after this much quiet. */
const QUIET_MS = 500;

export default async function show(
  ctx: Context,
  [given]: ArgsOf<typeof spec>,
  flags: FlagsOf<typeof spec>,
): Promise<number> {
  const runId = given ?? (await pickRun(ctx, 'any', 'logs')).id;
  const api = await ctx.api();
  api.http.deadlinePerRequest();
  const style = await loadStyle(ctx.io);
  const run = await api.runs.retrieve(runId);
  const moving = !TERMINAL_STATUSES.has(run.status);
  const stop = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
    stop.abort();
  };
  ctx.signal.addEventListener('abort', onSigint);
  let cancelQuiet = () => {};
  const arm = () => {
    cancelQuiet();
    if (moving && !flags.follow) cancelQuiet = ctx.clock.timer(QUIET_MS, () => stop.abort());
  };

  const print = (l: Line) => {
    if (ctx.io.json) return void ctx.io.streams.stdout.write(ctx.io.jsonLine(l));
    const level =
      l.level === 'error' ? style.red('ERROR') : l.level === 'warn' ? style.yellow('WARN ') : style.dim('info ');
    ctx.io.out(`${style.dim(oneLine(l.ts.slice(11, 19)))}  ${oneLine(l.stage)}  ${level}  ${oneLine(l.message)}`);
  };
  const kept: Line[] = [];
  let failed: { event: Event; raw: unknown } | null = null;
  let status = run.status;
  let count = 0;
  // The stages the run has been at, to tell a stage not reached yet from one it never will.
  const stages = new Set([run.stage]);
  try {
    arm();
    for await (const ev of watchRun(api, runId, { signal: stop.signal, ...streamKnobs(ctx) })) {
      arm();
      if (ev.kind === 'event' && ev.event.data.stage) stages.add(ev.event.data.stage);
      if (ev.kind === 'log') {
        const d = ev.event.data;
        if (d.stage) stages.add(d.stage);
        const line: Line = {
          type: 'log',
          seq: ev.seq,
          stage: d.stage ?? '',
          level: d.level ?? 'info',
          message: d.message ?? '',
          ts: d.ts ?? ev.event.created_at,
        };
        if (flags.stage !== undefined && line.stage !== flags.stage) continue;
        count++;
        // --failed shows the failing stage, known only at the end.
        if (flags.failed) kept.push(line);
        else print(line);
      }
      if (ev.kind === 'event' && ev.event.type === 'run.failed') failed = { event: ev.event, raw: ev.raw ?? ev.event };
      if (ev.kind === 'ended') {
        status = ev.status;
        break;
      }
    }
  } finally {
    cancelQuiet();
    ctx.signal.removeEventListener('abort', onSigint);
  }
  if (interrupted) return EXIT.interrupted;
  if (flags.failed) {
    if (!failed) {
      ctx.io.info(`orc: ${runId} did not fail (it is ${oneLine(status)}); nothing to show`);
      return EXIT.ok;
    }
    const stage = failed.event.data.stage ?? kept.at(-1)?.stage;
    for (const l of kept) if (l.stage === stage) print(l);
    const error = failed.event.data.error;
    if (ctx.io.json) ctx.io.streams.stdout.write(ctx.io.jsonLine(failed.raw));
    else
      ctx.io.out(
        `${style.red('failed')} at ${oneLine(stage ?? '?')}: ${error ? `${oneLine(error.code)}: ${oneLine(error.message)}` : 'no error was given'}`,
      );
    return EXIT.ok;
  }
  if (count === 0 && flags.stage !== undefined) neverThere(runId, flags.stage, status, stages);
  if (count === 0)
    ctx.io.info(
      `orc: no log lines${flags.stage !== undefined ? ` in stage ${oneLine(flags.stage)}` : ''} yet (${runId} is ${oneLine(status)})`,
    );
  return EXIT.ok;
}

/** `--stage` names a stage the run has not been at: past its end or behind it, it never will be (exit 2). */
function neverThere(runId: string, stage: string, status: string, stages: Set<string>): void {
  if (stages.has(stage)) return;
  const ordered = [...stages].sort(compareStages);
  const ended = TERMINAL_STATUSES.has(status);
  if (!ended && !(compareStages(stage, ordered.at(-1) ?? '') < 0)) return;
  const why = ended ? `it is ${status}` : `it is past it, at ${ordered.at(-1)}`;
  const list = ordered.map((s) => oneLine(s)).join(', ');
  const message = `--stage ${oneLine(stage)}: ${runId} never reached that stage (${oneLine(why)}); its stages: ${list}`;
  throw Object.assign(new UsageError(message), { field: '--stage' });
}
