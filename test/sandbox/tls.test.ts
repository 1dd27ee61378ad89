// The certificates `orc sandbox start --tls` writes (src/sandbox/tls.ts): each one must parse and verify,
// whatever its random serial and key; a leading zero in a serial once made OpenSSL refuse 1 in 128.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxTls } from '../../src/sandbox/tls.js';
import { needTool } from '../helpers/tools.js';

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
  for (const n of ['hooks.example.test', 'other.example.test'])
    expect(at(ca2, [0x82, n.length, ...Buffer.from(n)])).toBeGreaterThan(0);
});

it("takes its validity from the clock it is given, not the system's", () => {
  const dir = mkdtempSync(join(tmpdir(), 'orc-tls-clock-'));
  const then = Date.parse('2031-05-01T12:00:00Z');
  const t = sandboxTls(dir, [], then);
  const cert = new X509Certificate(t.cert);
  expect(Date.parse(cert.validFrom)).toBe(then - 86_400_000 - (then % 1000));
  expect(Date.parse(cert.validTo)).toBe(then + 365 * 86_400_000 - (then % 1000));
});
// The constraints as OpenSSL enforces them: what a leaked CA key could make is refused by a verifier.
describe.runIf(needTool('openssl', 'the CA constraint tests'))('the CA, checked by openssl verify', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orc-tls-ca-'));
  const t = sandboxTls(dir, ['sandbox.example.test'], Date.now());
  const openssl = (args: string[], input?: string) => spawnSync('openssl', args, { cwd: dir, input, encoding: 'utf8' });
  /** A certificate for `san` made with the key `signer` (the CA's, or another's), as anyone holding it could. */
  function issue(file: string, san: string, signer: [string, string], ca = false): void {
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${file}-key.pem`]);
    const ext = ca ? 'basicConstraints=critical,CA:TRUE' : `subjectAltName=${san}`;
    const csr = openssl(['req', '-new', '-key', `${file}-key.pem`, '-subj', `/CN=${file}`, '-addext', ext]).stdout;
    const args = ['x509', '-req', '-CA', signer[0], '-CAkey', signer[1], '-copy_extensions', 'copy', '-days', '30'];
    const made = openssl([...args, '-out', `${file}.pem`], csr);
    expect(made.status, made.stderr).toBe(0);
  }
  const verify = (file: string, untrusted?: string) =>
    openssl(['verify', '-CAfile', 'ca.pem', ...(untrusted ? ['-untrusted', untrusted] : []), `${file}.pem`]);

  it('verifies the server certificate it signed, and a certificate for a name it serves', () => {
    writeFileSync(join(dir, 'server.pem'), t.cert);
    expect(verify('server').status, verify('server').stderr).toBe(0);
    issue('served', 'DNS:sandbox.example.test', ['ca.pem', 'ca-key.pem']);
    expect(verify('served').status).toBe(0);
  });

  it('is limited to the names the sandbox serves: its key cannot make a certificate for another site', () => {
    issue('bank', 'DNS:bank.example', ['ca.pem', 'ca-key.pem']);
    const r = verify('bank');
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/permitted subtree violation/);
    issue('lan', 'IP:192.168.1.1', ['ca.pem', 'ca-key.pem']);
    expect(verify('lan').stdout + verify('lan').stderr).toMatch(/permitted subtree violation/);
  });

  it('has path length 0: a CA it signs cannot sign anything that verifies', () => {
    issue('middle', '', ['ca.pem', 'ca-key.pem'], true);
    issue('leaf', 'DNS:localhost', ['middle.pem', 'middle-key.pem']);
    const r = verify('leaf', 'middle.pem');
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/path length constraint exceeded/);
  });

  it('is made again when a start serves a name it does not cover (and kept when it covers it)', () => {
    const before = readFileSync(t.caFile, 'utf8');
    sandboxTls(dir, ['sandbox.example.test'], Date.now());
    expect(readFileSync(t.caFile, 'utf8')).toBe(before);
    const other = sandboxTls(dir, ['10.0.0.7'], Date.now());
    expect(readFileSync(t.caFile, 'utf8')).not.toBe(before);
    writeFileSync(join(dir, 'other.pem'), other.cert);
    expect(verify('other').status).toBe(0);
    issue('still', 'DNS:sandbox.example.test', ['ca.pem', 'ca-key.pem']);
    expect(verify('still').status).toBe(0);
  });
});
