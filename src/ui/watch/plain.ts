// Not a terminal: one timestamped line per event on stdout, no escape codes; connection news on stderr.
// --accessible (a screen reader at a terminal): the same, shorter: a stage's progress as "05_build 40%" at
// each tenth, the events said in words without a timestamp.
import type { WatchEvent } from '../../watch/engine.js';
import type { IO } from '../io.js';
import { oneLine } from '../../lib/sanitize.js';
import { describeEvent } from './describe.js';
import type { WatchRenderer } from './types.js';

export class PlainRenderer implements WatchRenderer {
  private stage: string | null = null;
  private tenth = -1;
  private name: string | null = null;

  constructor(
    private readonly io: IO,
    private readonly opts: { accessible?: boolean } = {},
  ) {}

  handle(ev: WatchEvent): void {
    if (this.opts.accessible && (ev.kind === 'event' || ev.kind === 'log')) return this.say(ev);
    switch (ev.kind) {
      case 'event':
        return this.io.out(
          `${oneLine(ev.event.created_at)} ${oneLine(ev.event.type)} ${describeEvent(ev.event)}${ev.synthetic ? ' (polled)' : ''}`,
        );
      case 'log': {
        const d = ev.event.data;
        return this.io.out(
          `${oneLine(d.ts ?? ev.event.created_at)} log ${oneLine(d.level ?? 'info')} ${oneLine(d.stage ?? '')} ${oneLine(d.message ?? '')}`,
        );
      }
      case 'reconnecting':
        return this.io.info(
          `orc: ${ev.reason}; reconnecting in ${(ev.delayMs / 1000).toFixed(1)} s (attempt ${ev.attempt})`,
        );
      case 'connected':
        if (ev.reconnected) this.io.info(`orc: reconnected; resuming after event ${ev.resumedAfter}`);
        return;
      case 'polling':
        return this.io.info(`orc: ${ev.reason}; following the run by polling instead`);
      default:
        return;
    }
  }

  /** --accessible: a line per change, progress every 10%. */
  private say(ev: Extract<WatchEvent, { kind: 'event' | 'log' }>): void {
    if (ev.kind === 'event' && ev.event.type === 'run.stage_changed') {
      const stage = ev.event.data.stage ?? this.stage ?? '';
      const percent = ev.event.data.percent ?? 0;
      const tenth = Math.floor(percent / 10);
      if (stage === this.stage && tenth <= this.tenth) return;
      this.stage = stage;
      this.tenth = tenth;
      return this.io.out(`${oneLine(stage)} ${tenth * 10}%`);
    }
    if (ev.kind === 'event') return this.io.out(describeEvent(ev.event));
    const d = ev.event.data;
    const level = d.level === 'error' ? 'error: ' : d.level === 'warn' ? 'warning: ' : '';
    this.io.out(`${oneLine(d.stage ?? '')} ${level}${oneLine(d.message ?? '')}`);
  }

  /** On stderr: stdout's lines stay one per event. */
  named(runId: string, name: string | null): void {
    if (!name || name === this.name) return;
    this.name = name;
    this.io.info(`orc: watching ${runId} (${oneLine(name)})`);
  }

  note(text: string): void {
    this.io.info(`orc: ${text}`);
  }
  pause(): void {}
  resume(): void {}
  finish(): void {}
}
