// Webhook signatures (CONTRACT.md): `X-Service-Signature: t=<unix s>,v1=<hex>[,v1=<hex>…]`,
// hex = HMAC-SHA256(secret, `${t}.${rawBody}`). Receivers allow 300 s of clock skew and compare in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
export const DELIVERY_ID_HEADER = 'x-service-delivery-id';
export const SIGNATURE_TOLERANCE_S = 300;

export function computeSignature(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return mac.digest('hex');
}

/** The header value for one delivery attempt; several secrets (rotation) give several `v1=`. */
export function signatureHeader(
  secrets: string | readonly string[],
  rawBody: string | Uint8Array,
  nowMs = Date.now(),
): string {
  const t = Math.floor(nowMs / 1000);
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${t}`, ...list.map((s) => `v1=${computeSignature(s, t, rawBody)}`)].join(',');
}

export type SignatureFailure = 'no_secret' | 'malformed' | 'timestamp_outside_tolerance' | 'no_matching_signature';
export type SignatureResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: SignatureFailure; message: string };

export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

export function verifySignature(
  secret: string,
  header: string | undefined | null,
  rawBody: string | Uint8Array,
  { nowMs = Date.now(), toleranceS = SIGNATURE_TOLERANCE_S }: { nowMs?: number; toleranceS?: number } = {},
): SignatureResult {
  // An empty secret is no secret: anyone can sign with it, so nothing checked against it is ever valid.
  if (!secret) return { ok: false, reason: 'no_secret', message: 'there is no secret to check the signature against' };
  const parsed = header ? parseSignatureHeader(header) : null;
  if (!parsed)
    return { ok: false, reason: 'malformed', message: 'the signature header is missing or not of the form t=…,v1=…' };
  const skew = Math.abs(Math.floor(nowMs / 1000) - parsed.timestamp);
  if (skew > toleranceS)
    return {
      ok: false,
      reason: 'timestamp_outside_tolerance',
      message: `the signature timestamp is ${skew} s from this clock (tolerance ${toleranceS} s)`,
    };
  const expected = Buffer.from(computeSignature(secret, parsed.timestamp, rawBody), 'hex');
  // Compare against every v1 without stopping early, so timing says nothing about which one matched.
  let matched = false;
  for (const sig of parsed.signatures) {
    const given = Buffer.from(sig, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched
    ? { ok: true, timestamp: parsed.timestamp }
    : { ok: false, reason: 'no_matching_signature', message: 'no v1 signature matches this secret and body' };
}
