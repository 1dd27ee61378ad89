// The certificates `orc sandbox start --tls` writes (src/sandbox/tls.ts): each one must parse and verify,
// whatever its random serial and key; a leading zero in a serial once made OpenSSL refuse 1 in 128.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { sandboxTls } from '../../src/sandbox/tls.js';

it('writes certificates that parse and verify against the CA, 600 times over', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orc-tls-unit-'));
  const ca = new X509Certificate(readFileSync(sandboxTls(dir, ['example.test'], Date.now()).caFile));
  expect(ca.ca).toBe(true);
  for (let i = 0; i < 600; i++) {
    const t = sandboxTls(dir, ['example.test'], Date.now());
    const cert = new X509Certificate(t.cert);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(t.key))).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:example.test');
  }
});

/** Where `inner` (DER bytes) stands in `der`, or -1. */
const at = (der: Buffer, inner: number[]) => der.indexOf(Buffer.from(inner));

it('the CA signs servers only, and only for the names it serves: path length 0, name constraints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orc-tls-constraints-'));
  const first = sandboxTls(dir, ['hooks.example.test'], Date.now());
  expect(first.newCa).toBe(true);
  const ca = new X509Certificate(readFileSync(first.caFile)).raw;
  // basicConstraints: cA TRUE, pathLenConstraint 0.
  expect(at(ca, [0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0x00])).toBeGreaterThan(0);
  // nameConstraints (2.5.29.30), critical, permitting the served names: a name and an address with its mask.
  expect(at(ca, [0x06, 0x03, 0x55, 0x1d, 0x1e, 0x01, 0x01, 0xff])).toBeGreaterThan(0);
  expect(at(ca, [0x82, 'hooks.example.test'.length, ...Buffer.from('hooks.example.test')])).toBeGreaterThan(0);
  expect(at(ca, [0x87, 8, 127, 0, 0, 1, 255, 255, 255, 255])).toBeGreaterThan(0);
  // The same names again: the CA is kept (trusted once); a name it was not made for: a new one, for both.
  expect(sandboxTls(dir, ['hooks.example.test'], Date.now()).newCa).toBe(false);
  const wider = sandboxTls(dir, ['other.example.test'], Date.now());
  expect(wider.newCa).toBe(true);
  const ca2 = new X509Certificate(readFileSync(wider.caFile)).raw;
  for (const n of ['hooks.example.test', 'other.example.test']) expect(at(ca2, [0x82, n.length, ...Buffer.from(n)])).toBeGreaterThan(0);
});

it("takes its validity from the clock it is given, not the system's", () => {
  const dir = mkdtempSync(join(tmpdir(), 'orc-tls-clock-'));
  const then = Date.parse('2031-05-01T12:00:00Z');
  const t = sandboxTls(dir, [], then);
  const cert = new X509Certificate(t.cert);
  expect(Date.parse(cert.validFrom)).toBe(then - 86_400_000 - (then % 1000));
  expect(Date.parse(cert.validTo)).toBe(then + 365 * 86_400_000 - (then % 1000));
});
