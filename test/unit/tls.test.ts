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
  const ca = new X509Certificate(readFileSync(sandboxTls(dir, []).caFile));
  expect(ca.ca).toBe(true);
  for (let i = 0; i < 600; i++) {
    const t = sandboxTls(dir, ['example.test']);
    const cert = new X509Certificate(t.cert);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(t.key))).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:example.test');
  }
});
