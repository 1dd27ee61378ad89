// Time as a dependency: the real clock in use, a fake one in tests, so backoff, deadlines and idle
// timeouts are tested without waiting them out.

export interface Clock {
  now(): number;
  /** Calls `fn` after `ms`; answers a function that cancels it. */
  timer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  timer(ms, fn) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

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
