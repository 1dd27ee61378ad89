// Requests per second per key (a fixed one-second window), with the X-RateLimit-* headers on every answer.
import type { Clock } from '../lib/clock.js';
import { Failure } from './failure.js';

export class RateLimiter {
  private readonly windows = new Map<string, { reset: number; count: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one request against the bucket and adds the X-RateLimit-* headers to the answer's `headers`. */
  take(headers: string[], bucket: string): void {
    if (this.perSecond <= 0) return;
    const nowS = Math.floor(this.clock.now() / 1000);
    let w = this.windows.get(bucket);
    if (!w || w.reset <= nowS) {
      w = { reset: nowS + 1, count: 0 };
      this.windows.set(bucket, w);
      if (this.windows.size > 10_000) for (const [k, v] of this.windows) if (v.reset <= nowS) this.windows.delete(k);
    }
    w.count++;
    headers.push(
      'X-RateLimit-Limit',
      String(this.perSecond),
      'X-RateLimit-Remaining',
      String(Math.max(0, this.perSecond - w.count)),
      'X-RateLimit-Reset',
      String(w.reset),
    );
    if (w.count > this.perSecond) {
      const retry = Math.max(1, w.reset - nowS);
      throw new Failure(
        'rate_limited',
        `more than ${this.perSecond} requests per second with this key; retry in ${retry} s`,
        undefined,
        { 'Retry-After': String(retry) },
      );
    }
  }
}
