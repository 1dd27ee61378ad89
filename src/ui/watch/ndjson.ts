// --json: one event envelope per line on stdout, written as it arrives; everything else on stderr.
import type { WatchEvent } from '../../watch/engine.js';
import type { IO } from '../io.js';
import { PlainRenderer } from './plain.js';
import type { WatchRenderer } from './types.js';

export class NdjsonRenderer implements WatchRenderer {
  private readonly notes: PlainRenderer;
  /** Lines of the events that came in one read from the network, written together: one write, not one each. */
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly io: IO) {
    this.notes = new PlainRenderer(io);
  }

  handle(ev: WatchEvent): void {
    if (ev.kind === 'event' || ev.kind === 'log') {
      // The envelope as the service sent it: fields of a type orc did not expect are shown, not dropped.
      this.pending.push(this.io.jsonLine(ev.raw ?? ev.event, ev.text));
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    } else if (ev.kind !== 'gate_pending' && ev.kind !== 'ended') {
      this.flush();
      this.notes.handle(ev);
    }
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    this.io.streams.stdout.write(this.pending.join(''));
    this.pending = [];
  }

  note(text: string): void {
    this.flush();
    this.notes.note(text);
  }
  pause(): void {}
  resume(): void {}
  finish(): void {
    this.flush();
  }
}
