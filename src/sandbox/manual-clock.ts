// The sandbox's clock when time is steered (`orc sandbox start --clock manual`): it stands still until
// advanced, then fires every timer that falls due, in order, each at its own time, including the timers
// those set on the way. Virtual time never goes backwards.
import { LAST_TIME, type Clock } from '../lib/clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  done: boolean;
  /** Fired in its turn, but not said to be due nor counted as fired (retention's expiry). */
  housekeeping: boolean;
}

export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start: number) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  timer(ms: number, fn: () => void, opts?: { housekeeping?: boolean }): () => void {
    const timer: Timer = {
      at: this.t + Math.max(0, ms),
      seq: ++this.seq,
      fn,
      done: false,
      housekeeping: opts?.housekeeping === true,
    };
    this.timers.push(timer);
    return () => {
      timer.done = true;
    };
  }

  /** When the next timer falls due, or null when none is waiting. */
  nextAt(): number | null {
    let next: number | null = null;
    for (const t of this.timers) if (!t.done && !t.housekeeping && (next === null || t.at < next)) next = t.at;
    return next;
  }

  /** Timers waiting. */
  get pending(): number {
    return this.timers.filter((t) => !t.done && !t.housekeeping).length;
  }

  /**
   * Moves time to `target` (never back), firing every timer due by then in order of time (then of setting).
   * `stop` is asked after each one: true ends the advance there, at that timer's time.
   */
  advanceTo(to: number, stop: () => boolean = () => false): { fired: number; stopped: boolean } {
    // Past the year 9999 every date a request shows would throw: time stops at the last one that can be shown.
    const target = Math.min(to, LAST_TIME);
    let fired = 0;
    for (;;) {
      let due: Timer | undefined;
      for (const t of this.timers)
        if (!t.done && t.at <= target && (!due || t.at < due.at || (t.at === due.at && t.seq < due.seq))) due = t;
      if (!due) break;
      due.done = true;
      this.t = Math.max(this.t, due.at);
      due.fn();
      if (due.housekeeping) continue;
      fired++;
      if (stop()) {
        this.compact();
        return { fired, stopped: true };
      }
    }
    this.t = Math.max(this.t, target);
    this.compact();
    return { fired, stopped: false };
  }

  private compact(): void {
    if (this.timers.length > 64) this.timers = this.timers.filter((t) => !t.done);
  }
}

/**
 * The clock a data folder's sandbox starts on: never before `floor` (the latest time it had shown,
 * Store.latestTime), so events after a restart are never dated before those before it. A steered clock is
 * moved there; a real one behind it (the folder's last run was steered ahead, or the system clock went back)
 * runs on from there, offset by the difference.
 */
export function clockNotBefore(clock: Clock, floor: number): Clock {
  const behind = floor - clock.now();
  if (behind <= 0) return clock;
  if (clock instanceof ManualClock) {
    clock.advanceTo(floor);
    return clock;
  }
  return { now: () => clock.now() + behind, timer: (ms, fn, opts) => clock.timer(ms, fn, opts) };
}

/**
 * The clocks a sandbox starts on (`--clock manual|real`): steered, the service's clock stands still until
 * advanced, from no earlier than an imported snapshot was taken (its timestamps never lie ahead); the
 * network's timeouts stay on real time either way.
 */
export function startClocks(
  mode: 'manual' | 'real',
  real: Clock,
  snapshot?: object,
): { clock: Clock; wallClock: Clock } {
  const start = Math.max(
    real.now(),
    Date.parse(String((snapshot as { exported_at?: unknown } | undefined)?.exported_at ?? '')) || 0,
  );
  return { clock: mode === 'manual' ? new ManualClock(start) : real, wallClock: real };
}
