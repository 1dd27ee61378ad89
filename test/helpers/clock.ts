// A clock the test moves: timers fire when it is advanced, never on their own (unless told to for short
// waits), so backoff, Retry-After, deadlines and idle timeouts are tested without waiting them out.
import type { Clock } from '../../src/lib/clock.js';

interface Timer {
  at: number;
  ms: number;
  fn: () => void;
  done: boolean;
}

export class FakeClock implements Clock {
  private t = Date.now();
  private timers: Timer[] = [];
  /** The delay of every timer asked for, in order. */
  readonly requested: number[] = [];
  private watchers: Array<{ pred: (ms: number) => boolean; resolve: (ms: number) => void }> = [];

  /** With `autoMs`, a timer of at most that long fires by itself on the next turn of the event loop: keep it
   * below the watchdogs a test does not mean to trip (the 30 s silence rule per attempt, the deadline). */
  constructor(private readonly opts: { autoMs?: number } = {}) {}

  now(): number {
    return this.t;
  }

  timer(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.t + ms, ms, fn, done: false };
    this.timers.push(timer);
    this.requested.push(ms);
    for (const w of [...this.watchers]) {
      if (w.pred(ms)) {
        this.watchers.splice(this.watchers.indexOf(w), 1);
        w.resolve(ms);
      }
    }
    if (this.opts.autoMs !== undefined && ms <= this.opts.autoMs)
      setImmediate(() => !timer.done && this.advance(Math.max(0, timer.at - this.t)));
    return () => {
      timer.done = true;
    };
  }

  /** Moves time on by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      const due = this.timers.filter((t) => !t.done && t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.t = Math.max(this.t, due.at);
      due.done = true;
      due.fn();
    }
    this.t = target;
    this.timers = this.timers.filter((t) => !t.done);
  }

  /** Resolves once every timer set so far that fires by itself (`autoMs`) has fired or been cancelled: what
   * the code on this clock had scheduled has run. Timers those set are not waited for (a moving run always
   * has a next tick). Counted in turns of the event loop, not in real time. */
  async settled(): Promise<void> {
    const auto = this.opts.autoMs;
    const pending = auto === undefined ? [] : this.timers.filter((t) => !t.done && t.ms <= auto);
    while (pending.some((t) => !t.done)) await new Promise((r) => setImmediate(r));
    // (and what they started on the way: a commit's listeners, a delivery begun, one more turn)
    await new Promise((r) => setImmediate(r));
  }

  /** Resolves with the delay of a pending timer that `pred` accepts: one already set, else the next one asked for. */
  nextTimer(pred: (ms: number) => boolean = () => true): Promise<number> {
    const pending = this.timers.find((t) => !t.done && pred(t.ms));
    if (pending) return Promise.resolve(pending.ms);
    return new Promise((resolve) => this.watchers.push({ pred, resolve }));
  }
}

/** Real time, run `factor` times faster: a timeout still fires on real silence, a backoff is short. For
 * tests of what happens when nothing arrives for a while (an idle stream), where a fake clock cannot tell. */
export class ScaledClock implements Clock {
  private readonly start = Date.now();
  constructor(private readonly factor: number) {}

  now(): number {
    return this.start + (Date.now() - this.start) * this.factor;
  }

  timer(ms: number, fn: () => void): () => void {
    const t = setTimeout(fn, ms / this.factor);
    return () => clearTimeout(t);
  }
}
