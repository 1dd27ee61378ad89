// Not a terminal: one timestamped line per event on stdout, no escape codes; connection news on stderr.
import type { WatchEvent } from '../../watch/engine.js';
import type { IO } from '../io.js';
import { sanitizeLine } from '../sanitize.js';
import { describeEvent } from './describe.js';
import type { WatchRenderer } from './types.js';

export class PlainRenderer implements WatchRenderer {
  constructor(private readonly io: IO) {}

  handle(ev: WatchEvent): void {
    switch (ev.kind) {
      case 'event':
        return this.io.out(`${sanitizeLine(ev.event.created_at)} ${sanitizeLine(ev.event.type)} ${describeEvent(ev.event)}${ev.synthetic ? ' (polled)' : ''}`);
      case 'log': {
        const d = ev.event.data;
        return this.io.out(`${sanitizeLine(d.ts ?? ev.event.created_at)} log ${sanitizeLine(d.level ?? 'info')} ${sanitizeLine(d.stage ?? '')} ${sanitizeLine(d.message ?? '')}`);
      }
      case 'reconnecting':
        return this.io.info(`orc: ${ev.reason}; reconnecting in ${(ev.delayMs / 1000).toFixed(1)} s (attempt ${ev.attempt})`);
      case 'connected':
        if (ev.reconnected) this.io.info(`orc: reconnected; resuming after event ${ev.resumedAfter}`);
        return;
      case 'polling':
        return this.io.info(`orc: ${ev.reason}; following the run by polling instead`);
      default:
        return;
    }
  }

  note(text: string): void {
    this.io.info(`orc: ${text}`);
  }
  pause(): void {}
  resume(): void {}
  finish(): void {}
}
