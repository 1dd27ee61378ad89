// --json: one event envelope per line on stdout, written as it arrives; everything else on stderr.
import type { WatchEvent } from '../../api/watch.js';
import type { IO } from '../io.js';
import { PlainRenderer } from './plain.js';
import type { WatchRenderer } from './types.js';

export class NdjsonRenderer implements WatchRenderer {
  private readonly notes: PlainRenderer;
  constructor(private readonly io: IO) {
    this.notes = new PlainRenderer(io);
  }

  handle(ev: WatchEvent): void {
    if (ev.kind === 'event' || ev.kind === 'log') this.io.writeJsonLine(ev.kind === 'event' && ev.synthetic ? { ...ev.event, synthetic: true } : ev.event);
    else if (ev.kind !== 'gate_pending' && ev.kind !== 'ended') this.notes.handle(ev);
  }

  note(text: string): void {
    this.notes.note(text);
  }
  pause(): void {}
  resume(): void {}
  finish(): void {}
}
