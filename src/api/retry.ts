// When a request is tried again, and after how long: the one retry policy of orc's requests (as the
// Stainless SDKs name theirs), asked by the exchange, the event-stream reader and the webhook forwarder.
// Connection errors and silence are retried for idempotent requests (and a refused connection for any);
// 408, 429, 5xx and 409 `idempotency_key_in_use` likewise, a non-idempotent request only on 429 and 503.
// The wait is the service's Retry-After when it gives a positive one, else min(0.5 s · 2^n, 8 s) less up to
// a quarter at random (the curve, src/lib/backoff.ts), so many clients do not retry in step. A refused
// connection is tried only twice more, 0.2 s and 0.4 s apart: a service that refuses is not starting up
// where a longer wait would see it.
import { backoff, type Curve } from '../lib/backoff.js';

export const RETRYABLE_NETWORK = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  'ORC_ATTEMPT_TIMEOUT',
]);
export const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']);

/** The wait between attempts: min(0.5 s · 2^n, 8 s), less up to a quarter at random. */
export const RETRY_CURVE: Curve = { baseMs: 500, capMs: 8000, jitter: 0.25 };
/** A refused connection: 0.2 s, then 0.4 s, and no more. */
const REFUSED_CURVE: Curve = { baseMs: 200, capMs: 400 };
const REFUSED_RETRIES = 2;

/** The most a Retry-After is taken to say: a year. Beyond that a number is only a number that breaks dates. */
const RETRY_AFTER_CAP_S = 365 * 24 * 3600;

/**
 * Seconds from `Retry-After`: delta-seconds (possibly negative) or an HTTP date, clamped to a year either
 * way; null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  const at = /^-?\d+$/.test(v) ? null : Date.parse(v);
  const s = at === null ? Number(v) : Number.isNaN(at) ? null : Math.ceil((at - now) / 1000);
  return s === null ? null : Math.max(-RETRY_AFTER_CAP_S, Math.min(s, RETRY_AFTER_CAP_S));
}

/** Whether an answer of this status (and error code) is worth another attempt. */
export function retriesStatus(status: number, code: string, idempotent: boolean): boolean {
  return idempotent
    ? status === 408 || status === 429 || status >= 500 || (status === 409 && code === 'idempotency_key_in_use')
    : status === 429 || status === 503;
}

/** Whether a connection that failed this way is worth another attempt. */
export function retriesNetwork(code: string, idempotent: boolean): boolean {
  return RETRYABLE_NETWORK.has(code) && (idempotent || code === 'ECONNREFUSED');
}

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The longest Retry-After waited out; a longer one fails at once. */
  maxRetryAfterS: number;
  random: () => number;
}

/** Another attempt, after `waitMs`, out of `retries` retries in all for this kind of failure. */
export interface Retry {
  waitMs: number;
  retries: number;
}

export class RetryPolicy {
  constructor(readonly opts: RetryOptions) {}

  /** After an error answer to attempt `attempt` (0 first): the retry, or null when the answer is final. */
  afterAnswer(
    answer: { status: number; code: string; retryAfterS: number | null },
    idempotent: boolean,
    attempt: number,
    maxRetries = this.opts.maxRetries,
  ): Retry | null {
    if (!retriesStatus(answer.status, answer.code, idempotent) || attempt >= maxRetries) return null;
    return { waitMs: this.wait(attempt, answer.retryAfterS), retries: maxRetries };
  }

  /** After a connection that failed with `code` on attempt `attempt`: the retry, or null when it is final. */
  afterBroken(code: string, idempotent: boolean, attempt: number, maxRetries = this.opts.maxRetries): Retry | null {
    const refused = code === 'ECONNREFUSED';
    const retries = refused ? Math.min(maxRetries, REFUSED_RETRIES) : maxRetries;
    if (!retriesNetwork(code, idempotent) || attempt >= retries) return null;
    return { waitMs: refused ? backoff(attempt, REFUSED_CURVE) : this.wait(attempt), retries };
  }

  /** A Retry-After longer than orc waits out: the request fails at once, saying when to come back. */
  tooLong(retryAfterS: number | null): boolean {
    return retryAfterS !== null && retryAfterS > this.opts.maxRetryAfterS;
  }

  /** The wait before attempt n+1: a positive Retry-After as given; else (none, 0, negative, past) the backoff. */
  wait(attempt: number, retryAfterS: number | null = null): number {
    return retryAfterS !== null && retryAfterS > 0
      ? retryAfterS * 1000
      : backoff(attempt, RETRY_CURVE, this.opts.random);
  }
}
