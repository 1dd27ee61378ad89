// Time as a dependency: the real clock in use, a fake one in tests, so backoff, deadlines and idle
// timeouts are tested without waiting them out.

export interface Clock {
  now(): number;
  /** Calls `fn` after `ms`; answers a function that cancels it. `background`: the timer alone does not keep the
   * process running (a keep-alive, a retry that can wait for the next start). `housekeeping`: not work a
   * steered clock shows as due (retention's expiry: src/sandbox/manual-clock.ts). */
  timer(ms: number, fn: () => void, opts?: { background?: boolean; housekeeping?: boolean }): () => void;
}

/** The last moment a date can show in four digits (9999-12-31T23:59:59.999Z): a clock is never moved past it. */
export const LAST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  timer(ms, fn, opts) {
    // Node fires a delay past 2^31 - 1 ms at once: a longer wait is chained in pieces it can hold.
    let t: ReturnType<typeof setTimeout>;
    const arm = (left: number) => {
      t = setTimeout(left > MAX_TIMER_MS ? () => arm(left - MAX_TIMER_MS) : fn, Math.min(left, MAX_TIMER_MS));
      if (opts?.background) t.unref();
    };
    arm(ms);
    return () => clearTimeout(t);
  },
};

/** Calls `fn` every `ms` on `clock` until the answered function is called. */
export function every(clock: Clock, ms: number, fn: () => void, opts?: { background?: boolean }): () => void {
  let cancel = () => {};
  let stopped = false;
  const arm = () => {
    cancel = clock.timer(
      ms,
      () => {
        if (stopped) return;
        arm();
        fn();
      },
      opts,
    );
  };
  arm();
  return () => {
    stopped = true;
    cancel();
  };
}

/** The clock's time as ISO 8601. */
export function isoNow(clock: Clock, offsetMs = 0): string {
  return new Date(clock.now() + offsetMs).toISOString();
}

/** Resolves after `ms` on `clock`, or at once when `signal` fires (it never rejects). */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.timer(ms, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
