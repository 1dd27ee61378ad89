// The one way a test waits: for a condition it can observe (a request seen, a line printed, an answer of the
// API, the sandbox's store changing), never for a fixed time. The deadline is a safety net, not a measure.

/** Long enough for a machine whose cores are both busy; short of vitest's 30 s a test, so a failure says what
 * it waited for rather than only that the test timed out. */
export const UNTIL_DEADLINE_MS = 25_000;

export interface UntilOptions {
  /** The safety net, when a test's own timeout is longer (or its wait is meant to be short). */
  timeoutMs?: number;
  /** Subscribes `again` to what changes the answer (the store's commits, a stream's data) and answers the
   * unsubscribe: the condition is then asked when told, not every few milliseconds. */
  wake?: (again: () => void) => () => void;
  /** Between two looks when nothing wakes it (a look that costs: starting a tmux client). */
  pollMs?: number;
  /** What was seen last, for the message when the deadline passes. */
  seen?: () => string;
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** Resolves with the condition's first truthy answer (an asynchronous condition is awaited each time round). */
export async function until<T>(
  condition: () => T | Promise<T>,
  what = 'the condition',
  options: number | UntilOptions = {},
): Promise<Truthy<T>> {
  const {
    timeoutMs = UNTIL_DEADLINE_MS,
    wake,
    pollMs = 5,
    seen,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let woken = false;
  let poke = () => {};
  const off = wake?.(() => {
    woken = true;
    poke();
  });
  try {
    for (;;) {
      woken = false;
      const answer = await condition();
      if (answer) return answer as Truthy<T>;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out after ${timeoutMs / 1000} s waiting for ${what}${seen ? `; last seen: ${seen()}` : ''}`,
        );
      if (!woken) await nap(wake ? left : Math.min(pollMs, left), (wakeUp) => (poke = wakeUp));
    }
  } finally {
    off?.();
  }
}

/** Resolves after `ms`, or as soon as the function handed to `onWake` is called. */
function nap(ms: number, onWake: (wakeUp: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      onWake(() => {});
      resolve();
    }
    onWake(done);
  });
}
