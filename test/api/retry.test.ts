// The one retry policy (src/api/retry.ts), as numbers: which failures are tried again, how many times, after
// how long (its curve: test/lib/backoff.test.ts). The exchange, the event stream and the webhook forwarder
// all ask this policy; their tests (api/http, api/sse, commands/webhook) check they do.
import { describe, expect, it } from 'vitest';
import { backoff } from '../../src/lib/backoff.js';
import { RETRY_CURVE, RetryPolicy, parseRetryAfter, retriesNetwork, retriesStatus } from '../../src/api/retry.js';

describe('which failures are tried again', () => {
  it('an idempotent request on 408, 429, 5xx and 409 idempotency_key_in_use; a POST without a key on 429 and 503', () => {
    const statuses = [400, 401, 404, 408, 409, 422, 429, 500, 502, 503, 504];
    expect(statuses.filter((s) => retriesStatus(s, 'x', true))).toEqual([408, 429, 500, 502, 503, 504]);
    expect(retriesStatus(409, 'idempotency_key_in_use', true)).toBe(true);
    expect(retriesStatus(409, 'idempotency_key_in_use', false)).toBe(false);
    expect(statuses.filter((s) => retriesStatus(s, 'x', false))).toEqual([429, 503]);
  });

  it('a broken connection when idempotent; a refused one always; an unknown failure never', () => {
    expect(retriesNetwork('ECONNRESET', true)).toBe(true);
    expect(retriesNetwork('ORC_ATTEMPT_TIMEOUT', true)).toBe(true);
    expect(retriesNetwork('ECONNRESET', false)).toBe(false);
    expect(retriesNetwork('ECONNREFUSED', false)).toBe(true);
    expect(retriesNetwork('ENOTFOUND', true)).toBe(false);
    expect(retriesNetwork('CERT_HAS_EXPIRED', true)).toBe(false);
  });
});

describe('the retry policy', () => {
  it('is the request curve: min(0.5 s · 2^n, 8 s) less up to a quarter (docs/guide.md)', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoff(n, RETRY_CURVE, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(backoff(4, RETRY_CURVE, () => 1)).toBe(6000);
  });

  const policy = new RetryPolicy({ maxRetries: 4, maxRetryAfterS: 30, random: () => 0 });
  const answer = (status: number, retryAfterS: number | null = null) => ({ status, code: 'x', retryAfterS });

  it('retries an answer up to maxRetries times on the curve, a positive Retry-After instead of it', () => {
    expect([0, 1, 2, 3].map((n) => policy.afterAnswer(answer(503), true, n))).toEqual(
      [500, 1000, 2000, 4000].map((waitMs) => ({ waitMs, retries: 4 })),
    );
    expect(policy.afterAnswer(answer(503), true, 4)).toBeNull();
    expect(policy.afterAnswer(answer(404), true, 0)).toBeNull();
    expect(policy.afterAnswer(answer(429, 7), false, 0)).toEqual({ waitMs: 7000, retries: 4 });
    for (const s of [0, -5]) expect(policy.afterAnswer(answer(429, s), true, 0)).toEqual({ waitMs: 500, retries: 4 });
    expect(policy.afterAnswer(answer(503), true, 1, 1)).toBeNull();
  });

  it('a Retry-After over the longest waited out is too long; the header read as seconds or a date, a year at most', () => {
    expect(policy.tooLong(31)).toBe(true);
    expect(policy.tooLong(30)).toBe(false);
    expect(policy.tooLong(null)).toBe(false);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('99999999999', now)).toBe(365 * 24 * 3600);
    expect(parseRetryAfter('soon', now)).toBeNull();
  });

  it('a refused connection is tried twice more, 0.2 s and 0.4 s apart; another failure on the curve', () => {
    expect([0, 1, 2].map((n) => policy.afterBroken('ECONNREFUSED', false, n))).toEqual([
      { waitMs: 200, retries: 2 },
      { waitMs: 400, retries: 2 },
      null,
    ]);
    expect(policy.afterBroken('ECONNRESET', true, 3)).toEqual({ waitMs: 4000, retries: 4 });
    expect(policy.afterBroken('ECONNRESET', false, 0)).toBeNull();
    expect(policy.afterBroken('ECONNREFUSED', true, 0, 0)).toBeNull();
  });
});
