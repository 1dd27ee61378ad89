// At a terminal: finished stages with ticks and durations stay in the scrollback; below them a live region
// (current stage with a bar, percent and elapsed time, the last log lines dimmed, warnings and errors kept)
// is redrawn at most 20 times a second however fast events come. The drawing itself is ui/live-region.ts.
import { formatDuration } from '../../lib/duration.js';
import type { WatchEvent } from '../../watch/engine.js';
import { compareStages } from '../../contract/events.js';
import type { Event } from '../../contract/schemas.js';
import type { IO } from '../io.js';
import { LiveRegion } from '../live-region.js';
// Service text comes sanitised (lib/sanitize.ts parseServiceJson, where it enters orc): only what came another
// way (a connection's reason, which may quote a header) is sanitised here.
import { oneLine, sanitizeLine } from '../../lib/sanitize.js';
import type { Style } from '../style.js';
import { scoreBars } from '../scorecard.js';
import { describeEvent } from './describe.js';
import type { WatchRenderer } from './types.js';

const FRAME_MS = 50;
const LOG_LINES = 3;
const NOTABLE_LINES = 5;

interface Notable {
  level: string;
  text: string;
}

export class TtyRenderer implements WatchRenderer {
  private readonly region: LiveRegion;
  private timer: NodeJS.Timeout | null = null;
  private ticker: NodeJS.Timeout;
  private paused = false;
  private finished = false;
  private stage: string | null = null;
  private stageStart = 0;
  /** The stage ticked when its gate opened: a stage after the gate is after it, one before is "back to". */
  private ticked: string | null = null;
  private percent = 0;
  private readonly logs: string[] = [];
  private readonly notable: Notable[] = [];
  private waiting: string | null = null;
  /** The scorecard of the stage still running, drawn once that stage is ticked. */
  private held: string[] | null = null;
  private status = '';
  private name: string | null = null;
  /** Events handled and frames drawn: what the redraw cap is tested by. */
  readonly stats = { events: 0, frames: 0 };

  constructor(
    private readonly io: IO,
    private readonly style: Style,
    private readonly now: () => number = Date.now,
  ) {
    this.region = new LiveRegion(io.streams.stdout, () => io.columns);
    // The elapsed time of the current stage moves even when no event comes.
    this.ticker = setInterval(() => this.schedule(), 1000);
    this.ticker.unref();
  }

  /** A line above the view: the run's id and name (again, should a decision rename it). */
  named(runId: string, name: string | null): void {
    if (!name || name === this.name || this.finished) return;
    this.name = name;
    this.print([`${this.style.bold(runId)}  ${oneLine(name)}`]);
  }

  handle(ev: WatchEvent): void {
    this.stats.events++;
    switch (ev.kind) {
      case 'connected':
        this.status = '';
        break;
      case 'reconnecting':
        this.status = `${ev.reason}; reconnecting in ${(ev.delayMs / 1000).toFixed(1)} s (attempt ${ev.attempt})`;
        break;
      case 'polling':
        this.print([this.style.yellow(`! ${sanitizeLine(ev.reason)}; following the run by polling`)]);
        break;
      case 'log':
        this.onLog(ev.event);
        break;
      case 'event':
        this.status = '';
        this.onEvent(ev.event);
        break;
      default:
        break;
    }
    this.schedule();
  }

  private onLog(e: Event): void {
    const level = e.data.level ?? 'info';
    const text = `${oneLine(e.data.stage ?? '')}  ${oneLine(e.data.message ?? '')}`;
    if (level === 'warn' || level === 'error') {
      // A stage done again (a rework) says its warnings again: each is kept once, where it was said last.
      const again = this.notable.findIndex((n) => n.level === level && n.text === text);
      if (again >= 0) this.notable.splice(again, 1);
      this.notable.push({ level, text });
      if (this.notable.length > NOTABLE_LINES) this.notable.shift();
    } else {
      this.logs.push(text);
      if (this.logs.length > LOG_LINES) this.logs.shift();
    }
  }

  private onEvent(e: Event): void {
    const at = Date.parse(e.created_at) || this.now();
    const d = e.data;
    switch (e.type) {
      case 'run.stage_changed': {
        const next = d.stage ?? this.stage;
        if (next && next !== this.stage) {
          if (this.stage) {
            if (compareStages(next, this.stage) > 0) this.tick(this.style.green('✓'), at);
            else this.print([this.style.yellow(`↺ back to ${oneLine(next)}`)]);
          } else if (this.ticked && compareStages(next, this.ticked) <= 0)
            this.print([this.style.yellow(`↺ back to ${oneLine(next)}`)]);
          this.stage = next;
          this.stageStart = at;
        }
        this.percent = typeof d.percent === 'number' ? d.percent : this.percent;
        break;
      }
      case 'run.gate_pending':
        // A gate opens when its stage is done: the stage is ticked first, and the gate drawn after it.
        if (this.stage) this.tick(this.style.green('✓'), at);
        this.ticked = this.stage ?? this.ticked;
        this.stage = null;
        this.waiting = d.gate ?? null;
        this.print([this.style.yellow(`◆ ${describeEvent(e)}`)]);
        break;
      case 'run.gate_resolved':
        this.waiting = null;
        this.print([`${d.decision === 'approved' ? this.style.green('◆') : this.style.red('◆')} ${describeEvent(e)}`]);
        break;
      case 'run.scored':
        // The scorecard is what the scoring stage made: drawn when that stage is ticked, not before it.
        if (d.score) this.held = scoreBars(this.style, d.score, d.passed);
        if (!this.stage) this.flushHeld();
        break;
      case 'run.accepted':
      case 'run.rejected':
      case 'run.failed':
      case 'run.canceled': {
        const ok = e.type === 'run.accepted';
        if (this.stage) this.tick(ok ? this.style.green('✓') : this.style.red('✗'), at);
        this.stage = null;
        this.waiting = null;
        // The outcome (with the app store URL) is never cut to the width: it may wrap, it must stay whole.
        this.print(
          [
            ok
              ? this.style.green(this.style.bold(describeEvent(e)))
              : this.style.red(this.style.bold(describeEvent(e))),
          ],
          { whole: true },
        );
        break;
      }
      case 'run.created':
        break;
      default:
        this.print([`• ${describeEvent(e)}`]);
    }
  }

  /** The current stage done (or ended, `mark`): its line stays, then what it made (the scorecard). */
  private tick(mark: string, at: number): void {
    this.print([`${mark} ${oneLine(this.stage ?? '')}  ${this.style.dim(duration(at - this.stageStart))}`]);
    this.flushHeld();
  }

  private flushHeld(): void {
    if (this.held) this.print(this.held);
    this.held = null;
  }

  note(text: string): void {
    this.print([this.style.cyan(`› ${oneLine(text)}`)]);
  }

  pause(): void {
    this.paused = true;
    this.region.pause();
  }

  resume(): void {
    this.paused = false;
    this.region.resume();
    this.draw();
  }

  finish(opts: { keepFrame?: boolean } = {}): void {
    if (this.finished) return;
    clearInterval(this.ticker);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flushHeld();
    if (this.paused) this.resume();
    else this.draw();
    this.finished = true;
    // Interrupted: the last frame is what the person was looking at, so it stays. Otherwise the progress
    // goes, and the warnings and errors stay on screen after the run.
    this.region.close({ keep: Boolean(opts.keepFrame) });
    // Whole, not cut to the width: the build error is what the person needs to read (it may wrap).
    if (!opts.keepFrame && this.notable.length)
      this.region.print(
        this.notable.map((n) => this.paint(n)),
        { whole: true },
      );
  }

  /** Restores the cursor if the process is interrupted. */
  showCursor(): void {
    this.region.showCursor();
  }

  private schedule(): void {
    if (this.timer || this.paused || this.finished) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.draw();
    }, FRAME_MS);
  }

  /** Lines that stay: printed above the live region. */
  private print(lines: string[], opts: { whole?: boolean } = {}): void {
    this.region.print(lines, opts);
  }

  private draw(): void {
    if (this.paused || this.finished) return;
    this.stats.frames++;
    const lines: string[] = [];
    if (this.stage) {
      const width = 24;
      const filled = Math.round((Math.max(0, Math.min(100, this.percent)) / 100) * width);
      const bar = `${this.style.cyan('█'.repeat(filled))}${this.style.dim('░'.repeat(width - filled))}`;
      lines.push(
        `${this.style.cyan('▸')} ${this.style.bold(oneLine(this.stage))}  ${bar} ${String(this.percent).padStart(3)}%  ${this.style.dim(duration(this.now() - this.stageStart))}`,
      );
    }
    if (this.waiting) lines.push(this.style.yellow(`  waiting on gate ${oneLine(this.waiting)}`));
    for (const n of this.notable) lines.push(`  ${this.paint(n)}`);
    for (const l of this.logs) lines.push(this.style.dim(`  ${l}`));
    if (this.status) lines.push(this.style.yellow(`  ${sanitizeLine(this.status)}`));
    this.region.render(lines);
  }

  private paint(n: Notable): string {
    return n.level === 'error' ? this.style.red(`✗ ${n.text}`) : this.style.yellow(`! ${n.text}`);
  }
}

const duration = (ms: number) => formatDuration(ms, { compact: true });
