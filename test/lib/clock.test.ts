// The real clock's timers: a wait longer than a Node timer can hold (2^31 ms, about 24.8 days) is waited out,
// not fired at once (a fault's latency of 30d, a stage of 200d on the sandbox).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('systemClock.timer', () => {
  it('waits out a delay past 2^31 ms in full, and can be cancelled on the way', () => {
    vi.useFakeTimers();
    const DAY = 86_400_000;
    let fired = 0;
    systemClock.timer(30 * DAY, () => fired++);
    const cancel = systemClock.timer(30 * DAY, () => fired++);
    vi.advanceTimersByTime(25 * DAY);
    expect(fired).toBe(0);
    cancel();
    vi.advanceTimersByTime(5 * DAY - 1);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
  });
});
