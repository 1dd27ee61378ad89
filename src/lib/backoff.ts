// The backoff curve every wait before a retry in orc is drawn from: doubling from a base, held between a floor
// and a cap, less a random share so that many clients do not come back in step. A leaf: it imports nothing.

export interface Curve {
  /** The wait before the first retry (attempt 0), doubled at each attempt after it. */
  baseMs: number;
  /** The longest wait. */
  capMs: number;
  /** The shortest wait, however early the attempt (an event stream's `retry:`); default none. */
  floorMs?: number;
  /** The largest share of a wait taken off at random (0 to 1); default none: the wait as drawn. */
  jitter?: number;
}

/** The wait before retry `attempt` (0 for the first): min(max(floor, base · 2^attempt), cap), less jitter. */
export function backoff(attempt: number, curve: Curve, random: () => number = Math.random): number {
  const { baseMs, capMs, floorMs = 0, jitter = 0 } = curve;
  const drawn = Math.min(Math.max(floorMs, baseMs * 2 ** attempt), capMs);
  return jitter > 0 ? drawn * (1 - jitter * random()) : drawn;
}
