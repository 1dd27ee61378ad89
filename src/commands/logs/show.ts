// `orc logs <run>`: the run's log lines from its event stream (the watch engine: reconnects and all), whole
// (nothing cut, as the live view must), by stage, or the failing stage and its error. Text or NDJSON.
import type { ArgsOf, FlagsOf } from '../define.js';
import { compareStages, TERMINAL_STATUSES } from '../../contract/events.js';
import type { Api } from '../../api/index.js';
import type { Event, Run } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { EXIT, UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import { parseDuration } from '../../lib/duration.js';
import { loadStyle, type Style } from '../../ui/style.js';
import { watchRun, type WatchEvent } from '../../watch/engine.js';
import type { logs as def } from './command.js';
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

/** Which lines --since and --grep let through, checked before anything is asked (exit 2 naming the flag). */
interface Chooser {
  (line: Line): boolean;
  /** The choice in words, for "no log lines … yet". */
  said: string;
}

function chooser(flags: FlagsOf<typeof def>, now: number): Chooser {
  let pattern: RegExp | null = null;
  if (flags.grep !== undefined) {
    try {
      pattern = new RegExp(flags.grep);
    } catch (err) {
      throw Object.assign(new UsageError(`--grep: not a regular expression: ${(err as Error).message}`), {
        field: '--grep',
      });
    }
  }
  let from = Number.NEGATIVE_INFINITY;
  if (flags.since !== undefined) {
    const ms = parseDuration(flags.since);
    if (ms === null || ms <= 0)
      throw Object.assign(
        new UsageError(`--since: ${JSON.stringify(flags.since)} is not a duration (90s, 10m, 2h, 1d)`),
        {
          field: '--since',
        },
      );
    from = now - ms;
  }
  const choose = (l: Line) => (pattern === null || pattern.test(l.message)) && !(Date.parse(l.ts) < from);
  const said = [
    flags.since !== undefined ? ` in the last ${oneLine(flags.since)}` : '',
    pattern ? ` matching ${oneLine(flags.grep!)}` : '',
  ].join('');
  return Object.assign(choose, { said });
}

export default async function show(
  ctx: Context,
  [given]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const choose = chooser(flags, ctx.clock.now());
  const runId = given ?? (await pickRun(ctx, 'any', 'logs')).id;
  const api = await ctx.api();
  api.http.deadlinePerRequest();
  const style = await loadStyle(ctx.io);
  const run = await api.runs.retrieve(runId);
  const reader = new LogReader(ctx, runId, flags, run, choose, (l: Line) => {
    if (ctx.io.json) return void ctx.io.streams.stdout.write(ctx.io.jsonLine(l));
    const level =
      l.level === 'error' ? style.red('ERROR') : l.level === 'warn' ? style.yellow('WARN ') : style.dim('info ');
    ctx.io.out(`${style.dim(oneLine(l.ts.slice(11, 19)))}  ${oneLine(l.stage)}  ${level}  ${oneLine(l.message)}`);
  });
  if (!(await reader.read(api))) return EXIT.interrupted;
  if (flags.failed) return reader.showFailure(style);
  reader.flush();
  const { count, status } = reader;
  if (count === 0 && flags.stage !== undefined) neverThere(runId, flags.stage, status, reader.stages);
  if (count === 0)
    ctx.io.info(
      `orc: no log lines${flags.stage !== undefined ? ` in stage ${oneLine(flags.stage)}` : ''}${choose.said} yet (${runId} is ${oneLine(status)})`,
    );
  return EXIT.ok;
}

/** The run's stream read to its end (or, for a run still moving without --follow, to a quiet moment): the
 * lines printed as they come, or kept for --failed, and what the stream told of the run. */
class LogReader {
  private readonly stop = new AbortController();
  private readonly moving: boolean;
  private cancelQuiet = () => {};
  private readonly kept: Line[] = [];
  /** --tail: the last lines chosen, held until the history is over (then printed, and the rest as they come). */
  private tail: Line[] | null;
  private cancelHistory = () => {};
  private failed: { event: Event; raw: unknown } | null = null;
  status: string;
  count = 0;
  /** The stages the run has been at, to tell a stage not reached yet from one it never will. */
  readonly stages: Set<string>;

  constructor(
    private readonly ctx: Context,
    private readonly runId: string,
    private readonly flags: FlagsOf<typeof def>,
    run: Run,
    private readonly choose: Chooser,
    private readonly print: (l: Line) => void,
  ) {
    this.tail = flags.tail !== undefined && !flags.failed ? [] : null;
    this.moving = !TERMINAL_STATUSES.has(run.status);
    this.status = run.status;
    this.stages = new Set([run.stage]);
  }

  /** Reads the stream; false when Ctrl-C stopped it. */
  async read(api: Api): Promise<boolean> {
    let interrupted = false;
    const onSigint = () => {
      interrupted = true;
      this.stop.abort();
    };
    this.ctx.signal.addEventListener('abort', onSigint);
    try {
      this.arm();
      for await (const ev of watchRun(api, this.runId, { signal: this.stop.signal, ...streamKnobs(this.ctx) })) {
        this.arm();
        if (this.take(ev)) break;
      }
    } finally {
      this.cancelQuiet();
      this.cancelHistory();
      this.ctx.signal.removeEventListener('abort', onSigint);
    }
    return !interrupted;
  }

  /** Without --follow, a run still moving: its history is over after a quiet moment. With --follow and --tail,
   * that moment ends the history: its last lines are printed then, and each line after as it comes. */
  private arm(): void {
    this.cancelQuiet();
    if (this.moving && !this.flags.follow) this.cancelQuiet = this.ctx.clock.timer(QUIET_MS, () => this.stop.abort());
    this.cancelHistory();
    if (this.tail && this.flags.follow) this.cancelHistory = this.ctx.clock.timer(QUIET_MS, () => this.flush());
  }

  /** --tail: the last lines chosen so far, printed; every line after goes straight out. */
  flush(): void {
    const held = this.tail;
    this.tail = null;
    for (const l of held?.slice(-this.flags.tail!) ?? []) this.print(l);
  }

  /** One event of the stream; true once the run has ended. */
  private take(ev: WatchEvent): boolean {
    if (ev.kind === 'event' && ev.event.data.stage) this.stages.add(ev.event.data.stage);
    if (ev.kind === 'log') this.logLine(ev);
    if (ev.kind === 'event' && ev.event.type === 'run.failed')
      this.failed = { event: ev.event, raw: ev.raw ?? ev.event };
    if (ev.kind !== 'ended') return false;
    this.status = ev.status;
    return true;
  }

  private logLine(ev: Extract<WatchEvent, { kind: 'log' }>): void {
    const d = ev.event.data;
    if (d.stage) this.stages.add(d.stage);
    const line: Line = {
      type: 'log',
      seq: ev.seq,
      stage: d.stage ?? '',
      level: d.level ?? 'info',
      message: d.message ?? '',
      ts: d.ts ?? ev.event.created_at,
    };
    if (this.flags.stage !== undefined && line.stage !== this.flags.stage) return;
    if (!this.choose(line)) return;
    this.count++;
    // --failed shows the failing stage, known only at the end.
    if (this.flags.failed) this.kept.push(line);
    else if (this.tail) {
      this.tail.push(line);
      if (this.tail.length > 2 * this.flags.tail!) this.tail.splice(0, this.tail.length - this.flags.tail!);
    } else this.print(line);
  }

  /** --failed: the failing stage's lines and its error. */
  showFailure(style: Style): number {
    const { ctx, failed, kept } = this;
    if (!failed) {
      ctx.io.info(`orc: ${this.runId} did not fail (it is ${oneLine(this.status)}); nothing to show`);
      return EXIT.ok;
    }
    const stage = failed.event.data.stage ?? kept.at(-1)?.stage;
    const lines = kept.filter((l) => l.stage === stage);
    for (const l of this.flags.tail !== undefined ? lines.slice(-this.flags.tail) : lines) this.print(l);
    const error = failed.event.data.error;
    if (ctx.io.json) ctx.io.streams.stdout.write(ctx.io.jsonLine(failed.raw));
    else
      ctx.io.out(
        `${style.red('failed')} at ${oneLine(stage ?? '?')}: ${error ? `${oneLine(error.code)}: ${oneLine(error.message)}` : 'no error was given'}`,
      );
    return EXIT.ok;
  }
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
