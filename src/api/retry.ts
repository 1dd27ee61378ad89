// When a request is tried again, and after how long: the retry policy of the one exchange (as the
// Stainless SDKs name theirs). Connection errors and silence are retried for idempotent requests (and a
// refused connection for any); 408, 429, 5xx and 409 `idempotency_key_in_use` likewise, a non-idempotent
// request only on 429 and 503. The wait is the service's Retry-After when it gives a positive one, else
// min(0.5 s · 2^n, 8 s) less up to a quarter at random, so many clients do not retry in step.
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

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The longest Retry-After waited out; a longer one fails at once. */
  maxRetryAfterS: number;
  random: () => number;
}

export class RetryPolicy {
  constructor(readonly opts: RetryOptions) {}

  /** Whether an answer of this status (and error code) is worth another attempt. */
  shouldRetryStatus(status: number, code: string, idempotent: boolean): boolean {
    return idempotent
      ? status === 408 || status === 429 || status >= 500 || (status === 409 && code === 'idempotency_key_in_use')
      : status === 429 || status === 503;
  }

  /** Whether a connection that failed this way is worth another attempt. */
  shouldRetryNetwork(code: string, idempotent: boolean): boolean {
    return RETRYABLE_NETWORK.has(code) && (idempotent || code === 'ECONNREFUSED');
  }

  /** A Retry-After longer than orc waits out: the request fails at once, saying when to come back. */
  tooLong(retryAfterS: number | null): boolean {
    return retryAfterS !== null && retryAfterS > this.opts.maxRetryAfterS;
  }

  /** The wait before attempt n+1: a positive Retry-After as given; else (none, 0, negative, past) the backoff. */
  wait(attempt: number, retryAfterS: number | null = null): number {
    return retryAfterS !== null && retryAfterS > 0 ? retryAfterS * 1000 : this.backoff(attempt);
  }

  /** min(0.5 s · 2^n, 8 s), less up to a quarter at random. */
  backoff(attempt: number): number {
    return Math.min(500 * 2 ** attempt, 8000) * (1 - 0.25 * this.opts.random());
  }
}
