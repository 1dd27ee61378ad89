// The backoff curve every retry's wait is drawn from (src/lib/backoff.ts): doubling from a base between a
// floor and a cap, less a random share.
import { describe, expect, it } from 'vitest';
import { backoff } from '../../src/lib/backoff.js';

describe('the backoff curve', () => {
  it('doubles from its base up to its cap, and holds a floor however early the attempt', () => {
    const curve = { baseMs: 500, capMs: 8000 };
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => backoff(n, curve))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect([0, 1, 2, 3].map((n) => backoff(n, { ...curve, floorMs: 2000 }))).toEqual([2000, 2000, 2000, 4000]);
  });

  it('takes off at most its jitter share at random, and nothing without jitter', () => {
    const curve = { baseMs: 1000, capMs: 8000, jitter: 0.25 };
    expect(backoff(0, curve, () => 0)).toBe(1000);
    expect(backoff(0, curve, () => 0.5)).toBe(875);
    expect(backoff(0, curve, () => 1)).toBe(750);
    expect(backoff(3, curve, () => 1)).toBe(6000);
    expect(backoff(0, { baseMs: 1000, capMs: 8000 }, () => 1)).toBe(1000);
  });
});
