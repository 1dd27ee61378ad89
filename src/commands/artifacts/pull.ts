// `orc artifacts pull <run> [kind…]`: the engine (src/artifacts/pull.ts) drawn for people, pipes and scripts.
// At a terminal, one live view of every download (bytes, speed, ETA per file and in total); piped, a line
// per finished file; --json, one document of every file. Ctrl-C keeps the partial files (in <dir>/.orc-partial/) and exits 130.
import { relative } from 'node:path';
import {
  checkKinds,
  pullArtifacts,
  reportedFile,
  type FailedFile,
  type PullFile,
  type PulledFile,
} from '../../artifacts/pull.js';
import type { Context } from '../context.js';
import { FailedError, InterruptedError } from '../../exit/errors.js';
import { formatBytes, formatEta } from '../../ui/format.js';
import { LiveRegion } from '../../ui/live-region.js';
import { sanitizeLine } from '../../lib/sanitize.js';
import { loadStyle, type Style } from '../../ui/style.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { pull as def } from './command.js';
import { pickRun } from '../pick.js';
import { ARTIFACT_KINDS } from '../../contract/events.js';

const REDRAW_MS = 100;
const SPEED_WINDOW_MS = 3000;

export default async function pull(
  ctx: Context,
  [given, named]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  // `orc artifacts pull screenshots`: a kind where the run would be means the run was left out.
  const kindFirst = given !== undefined && (ARTIFACT_KINDS as readonly string[]).includes(given);
  const kinds = kindFirst ? [given!, ...named] : named;
  const runId = given !== undefined && !kindFirst ? given : (await pickRun(ctx, 'ended', 'artifacts pull')).id;
  const io = ctx.io;
  const wanted = checkKinds(kinds);
  const dir = flags.dir ?? runId;
  const api = await ctx.api();
  const style = await loadStyle(io);
  const shown = (path: string) => sanitizeLine(relative(process.cwd(), path) || '.');
  const view = io.animate && !io.json ? new LiveView(ctx, style, shown) : null;
  const options = { kinds: wanted, dir, concurrency: flags.concurrency, signal: ctx.signal, clock: ctx.clock };
  let outcome: PullOutcome;
  try {
    outcome = await pullArtifacts(api, runId, options, handlers(ctx, view, shown));
  } catch (err) {
    view?.close(err instanceof InterruptedError);
    if (err instanceof InterruptedError) {
      throw new InterruptedError(
        `interrupted; finished files are in place, and the partial files stay in .orc-partial/ so the next \`orc artifacts pull ${runId}\` resumes them`,
      );
    }
    throw err;
  }
  view?.close(false);
  return reportPull(ctx, runId, outcome, shown);
}

type PullOutcome = Awaited<ReturnType<typeof pullArtifacts>>;
type Handlers = NonNullable<Parameters<typeof pullArtifacts>[3]>;

/** The engine's news drawn in the live view at a terminal, else a line per finished file (none under --json). */
function handlers(ctx: Context, view: LiveView | null, shown: (path: string) => string): Handlers {
  const io = ctx.io;
  return {
    plan: (planned) => view?.plan(planned),
    start: (f, from) => view?.start(f, from),
    progress: (f, bytes) => view?.progress(f, bytes),
    done: (f) => {
      if (view) view.done(f);
      else if (!io.json) io.out([f.state, shown(f.path), String(f.size), f.sha256].join('\t'));
    },
    failed: (f) =>
      view
        ? view.failed(f)
        : io.warn(`orc: ✗ ${sanitizeLine(f.kind)}/${sanitizeLine(f.name)}: ${sanitizeLine(f.error)}`),
    notice: (line) => (view ? view.note(line) : io.info(`orc: ${sanitizeLine(line)}`)),
  };
}

/** What was pulled: one JSON document under --json, else a summary line; what is not ready yet; exit 1 when a
 * file could not be pulled. */
function reportPull(ctx: Context, runId: string, outcome: PullOutcome, shown: (path: string) => string): number {
  const io = ctx.io;
  const { files, failed, pending } = outcome;
  if (io.json) {
    io.writeJson({
      run: runId,
      dir: outcome.dir,
      files: files.map(reportedFile),
      pending,
      failed: failed.map((f) => ({ kind: f.kind, name: f.name, path: f.path, error: f.error })),
    });
  }
  if (pending.length)
    io.info(
      `Not ready yet, not pulled: ${pending.map(sanitizeLine).join(', ')}. Pull them later with \`orc artifacts pull ${runId} ${pending.map(sanitizeLine).join(' ')}\`.`,
    );
  // With nothing pulled no folder was made: no line names one.
  if (!io.json && (files.length || failed.length)) io.info(summaryLine(files, shown(outcome.dir)));
  if (failed.length)
    throw new FailedError(
      `${failed.length} file${failed.length === 1 ? '' : 's'} could not be pulled: ${failed.map((f) => `${f.kind}/${f.name}`).join(', ')}`,
    );
  if (files.length === 0 && !pending.length) io.info(`Run ${runId} has no artifacts to pull.`);
  return 0;
}

function summaryLine(files: PulledFile[], dir: string): string {
  const count = (s: PulledFile['state']) => files.filter((f) => f.state === s).length;
  const total = files.reduce((n, f) => n + f.size, 0);
  const parts = [
    `${count('downloaded')} downloaded`,
    count('resumed') ? `${count('resumed')} resumed` : '',
    count('present') ? `${count('present')} already present` : '',
  ].filter(Boolean);
  return `${files.length} file${files.length === 1 ? '' : 's'} in ${dir}/ (${formatBytes(total)}): ${parts.join(', ')}`;
}

interface Active {
  file: PullFile;
  bytes: number;
  /** (time, bytes) over the last few seconds: the speed. */
  samples: Array<[number, number]>;
}

/** The live view at a terminal, on stderr: a line per download in progress and a total, redrawn at most ten times a second. */
class LiveView {
  private readonly region: LiveRegion;
  private readonly active = new Map<string, Active>();
  private plannedBytes = 0;
  private readonly planned = new Set<string>();
  private finishedBytes = 0;
  private finishedFiles = 0;
  private totalSamples: Array<[number, number]> = [];
  private cancelTimer: (() => void) | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly style: Style,
    private readonly shown: (path: string) => string,
  ) {
    this.region = new LiveRegion(ctx.io.streams.stderr, () => ctx.io.columns);
  }

  plan(files: PullFile[]): void {
    this.plannedBytes = files.reduce((n, f) => n + f.size, 0);
    for (const f of files) this.planned.add(f.path);
  }

  start(file: PullFile, from: number): void {
    this.active.set(file.path, { file, bytes: from, samples: [[this.ctx.clock.now(), from]] });
    this.schedule();
  }

  progress(file: PullFile, bytes: number): void {
    const a = this.active.get(file.path);
    if (!a) return;
    a.bytes = bytes;
    this.schedule();
  }

  done(f: PulledFile): void {
    this.active.delete(f.path);
    if (this.planned.has(f.path)) this.finishedBytes += f.size;
    this.finishedFiles++;
    const state = f.state === 'present' ? this.style.dim('already present') : f.state;
    this.region.print([`${this.style.green('✓')} ${this.shown(f.path)}  ${formatBytes(f.size)}  ${state}`], {
      frame: this.lines(),
    });
  }

  failed(f: FailedFile): void {
    if (f.path) this.active.delete(f.path);
    this.region.print(
      [`${this.style.red('✗')} ${sanitizeLine(f.kind)}/${sanitizeLine(f.name)}: ${sanitizeLine(f.error)}`],
      { frame: this.lines() },
    );
  }

  note(line: string): void {
    this.region.print([this.style.yellow(`! ${sanitizeLine(line)}`)]);
  }

  close(keep: boolean): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    if (keep) this.region.render(this.lines());
    this.region.close({ keep });
  }

  private schedule(): void {
    if (this.cancelTimer) return;
    this.cancelTimer = this.ctx.clock.timer(REDRAW_MS, () => {
      this.cancelTimer = null;
      this.region.render(this.lines());
    });
  }

  private lines(): string[] {
    const now = this.ctx.clock.now();
    const speedOf = (samples: Array<[number, number]>, bytes: number) => {
      samples.push([now, bytes]);
      while (samples.length > 2 && now - samples[0]![0] > SPEED_WINDOW_MS) samples.shift();
      const [t0, b0] = samples[0]!;
      return now > t0 ? ((bytes - b0) * 1000) / (now - t0) : 0;
    };
    const lines: string[] = [];
    let doing = 0;
    for (const a of this.active.values()) {
      const speed = speedOf(a.samples, a.bytes);
      doing += a.bytes;
      const pct = a.file.size ? Math.floor((a.bytes / a.file.size) * 100) : 100;
      lines.push(
        `  ${this.shown(a.file.path)}  ${formatBytes(a.bytes)} / ${formatBytes(a.file.size)}  ${pct}%  ${formatBytes(speed)}/s  ETA ${formatEta(speed > 0 ? (a.file.size - a.bytes) / speed : null)}`,
      );
    }
    const all = this.finishedBytes + doing;
    const speed = speedOf(this.totalSamples, all);
    const left = Math.max(0, this.plannedBytes - all);
    const of = this.plannedBytes ? ` / ${formatBytes(this.plannedBytes)}` : '';
    lines.push(
      this.style.bold(
        `  total  ${this.finishedFiles} done, ${this.active.size} downloading  ${formatBytes(all)}${of}  ${formatBytes(speed)}/s  ETA ${formatEta(speed > 0 && this.active.size ? left / speed : null)}`,
      ),
    );
    return lines;
  }
}
