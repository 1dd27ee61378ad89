// Webhook signatures as receivers check them: format, tolerance, rotation, tampering.
import { describe, expect, it } from 'vitest';
import {
  computeSignature,
  parseSignatureHeader,
  signatureHeader,
  verifySignature,
} from '../../src/contract/signature.js';

const secret = 'whsec_test_secret';
const body = '{"id":"evt_1","type":"run.created","data":{}}';
const now = Date.UTC(2026, 10, 22, 10, 0, 0);

describe('webhook signatures', () => {
  it('signs t.body with HMAC-SHA256 and verifies it', () => {
    const header = signatureHeader(secret, body, now);
    expect(header).toBe(`t=${now / 1000},v1=${computeSignature(secret, now / 1000, body)}`);
    expect(verifySignature(secret, header, body, { nowMs: now })).toEqual({ ok: true, timestamp: now / 1000 });
  });

  it('matches a known vector', () => {
    // printf '1795340400.hello' | openssl dgst -sha256 -hmac key
    expect(computeSignature('key', 1795340400, 'hello')).toBe(
      '7fc8c985b653eeffa32447c63b88331fcd3900a6c0a045da06182db3a86beb85',
    );
  });

  it('accepts any one of several v1 (secret rotation)', () => {
    const header = signatureHeader(['whsec_old', secret], body, now);
    expect(header.split(',')).toHaveLength(3);
    expect(verifySignature(secret, header, body, { nowMs: now }).ok).toBe(true);
    expect(verifySignature('whsec_old', header, body, { nowMs: now }).ok).toBe(true);
    expect(verifySignature('whsec_other', header, body, { nowMs: now })).toMatchObject({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('refuses a timestamp more than 300 s away, either side', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(secret, header, body, { nowMs: now + 300_000 }).ok).toBe(true);
    expect(verifySignature(secret, header, body, { nowMs: now + 301_000 })).toMatchObject({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifySignature(secret, header, body, { nowMs: now - 301_000 })).toMatchObject({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('refuses a changed body, a missing or malformed header', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(secret, header, body.replace('created', 'accepted'), { nowMs: now }).ok).toBe(false);
    for (const bad of [undefined, '', 'v1=abc', `t=${now / 1000}`, 't=abc,v1=00', `t=${now / 1000},v1=zz`])
      expect(verifySignature(secret, bad, body, { nowMs: now })).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('parses headers with spaces and unknown schemes, keeping only v1', () => {
    const sig = 'a'.repeat(64);
    expect(parseSignatureHeader(`t=12, v0=${'b'.repeat(64)}, v1=${sig}`)).toEqual({ timestamp: 12, signatures: [sig] });
  });
});

describe('an empty secret', () => {
  it('is never accepted: a body signed with the empty secret does not verify against it', () => {
    const body = '{"id":"evt_1"}';
    const now = 1_700_000_000_000;
    const header = signatureHeader('', body, now);
    expect(verifySignature('', header, body, { nowMs: now })).toEqual({
      ok: false,
      reason: 'no_secret',
      message: expect.stringContaining('no secret'),
    });
  });
});
