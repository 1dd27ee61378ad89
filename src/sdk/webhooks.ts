// Webhook signatures for a receiver (`import { webhooks } from 'orc-cli'`): the contract's scheme, checked by
// the one implementation the CLI's `orc webhook verify` and `listen` use (src/contract/signature.ts), on the
// raw body as it came. A hostile header never makes it throw anything but WebhookVerificationError.
import { SIGNATURE_HEADER, SIGNATURE_TOLERANCE_S, verifySignature } from '../contract/signature.js';
import { isPlainEvent } from '../contract/shapes.js';
import type { Event } from '../contract/schemas.js';

/** Why a delivery was refused. */
export type WebhookFailure =
  | 'no_secret'
  | 'malformed'
  | 'timestamp_outside_tolerance'
  | 'no_matching_signature'
  | 'not_raw_body'
  | 'not_an_event';

/** A delivery that is not what the service signed: answer it 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The signature header itself, the request's headers (node:http's, Express's, a Fetch `Headers`), or none. */
export type SignatureSource =
  | string
  | readonly string[]
  | { get(name: string): string | null | undefined }
  | Record<string, string | readonly string[] | undefined>
  | null
  | undefined;

export interface VerifyOptions {
  /** Seconds the signature's time may be from this clock (default 300, as the contract says). */
  tolerance?: number;
  /** This clock, in ms since the epoch (default now): for tests. */
  now?: number;
}

/** The header's value, wherever it was given. */
function headerOf(source: SignatureSource): string | null {
  if (typeof source === 'string') return source;
  if (source === null || source === undefined || typeof source !== 'object') return null;
  if (Array.isArray(source)) return source.length === 1 && typeof source[0] === 'string' ? source[0] : null;
  if (typeof (source as { get?: unknown }).get === 'function') {
    const v = (source as { get(name: string): unknown }).get(SIGNATURE_HEADER);
    return typeof v === 'string' ? v : null;
  }
  const record = source as Record<string, unknown>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === SIGNATURE_HEADER);
  return key === undefined ? null : headerOf(record[key] as SignatureSource);
}

/** The raw body as bytes or text; a parsed object cannot be checked (its bytes are gone). */
function rawBody(body: unknown): string | Uint8Array {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new WebhookVerificationError(
    'not_raw_body',
    `the body must be the raw request body (a string or Buffer), not ${body === null ? 'null' : typeof body === 'object' ? 'a parsed object' : typeof body}: a parsed body cannot be checked (read it raw: express.raw({ type: 'application/json' }), or the request's text)`,
  );
}

/**
 * Checks a delivery's signature (`X-Service-Signature: t=…,v1=…`): HMAC-SHA256 of `t.body` under the secret
 * (or any of several, while one is rotated), compared in constant time, its time within `tolerance`.
 * Returns when it holds; throws WebhookVerificationError, with its `reason`, when it does not.
 */
export function verify(
  body: string | ArrayBufferView | ArrayBuffer,
  header: SignatureSource,
  secret: string | Uint8Array | readonly string[],
  options: VerifyOptions = {},
): void {
  const raw = rawBody(body);
  const value = headerOf(header);
  const given: unknown[] =
    typeof secret === 'string' || secret instanceof Uint8Array ? [secret] : Array.isArray(secret) ? secret : [];
  // A secret read from a file or the environment as bytes is the same secret as text.
  const secrets = given
    .map((s) => (s instanceof Uint8Array ? Buffer.from(s).toString('utf8') : s))
    .filter((s): s is string => typeof s === 'string' && s !== '');
  if (secrets.length === 0)
    throw new WebhookVerificationError(
      'no_secret',
      "there is no secret to check against (the webhook's whsec_… string)",
    );
  options ??= {};
  const toleranceS = options.tolerance ?? SIGNATURE_TOLERANCE_S;
  // A tolerance that is not a number of seconds would turn the time check off (NaN compares false).
  if (typeof toleranceS !== 'number' || !(toleranceS >= 0))
    throw new RangeError(`tolerance must be a number of seconds (0 or more), not ${String(options.tolerance)}`);
  const now = options.now ?? Date.now();
  if (typeof now !== 'number' || !Number.isFinite(now))
    throw new RangeError(`now must be a time in ms since the epoch, not ${String(options.now)}`);
  let last: { reason: WebhookFailure; message: string } | null = null;
  for (const s of secrets) {
    const result = verifySignature(s, value, raw, { nowMs: now, toleranceS });
    if (result.ok) return;
    last = result;
  }
  throw new WebhookVerificationError(last!.reason, last!.message);
}

/** A delivery checked (as `verify`) and read: the event it carries, typed. */
export function unwrap(
  body: string | ArrayBufferView | ArrayBuffer,
  header: SignatureSource,
  secret: string | Uint8Array | readonly string[],
  options: VerifyOptions = {},
): Event {
  verify(body, header, secret, options);
  const raw = rawBody(body);
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('not_an_event', 'the body is signed but is not JSON');
  }
  // The contract's shape, its data's known fields of their types (shapes.ts): typed as Event only if it is one.
  if (!isPlainEvent(json))
    throw new WebhookVerificationError(
      'not_an_event',
      'the body is signed but is not an event (id, type, run_id, data)',
    );
  return json;
}

export const webhooks = { verify, unwrap, header: SIGNATURE_HEADER } as const;
