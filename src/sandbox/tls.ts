// `orc sandbox start --tls`: https with a certificate of the sandbox's own. A private CA (EC P-256, ten years)
// is made once and kept in the data folder (tls/ca.pem, and its key 0600 beside it), so a user trusts it
// once (NODE_EXTRA_CA_CERTS, or a profile's --ca-file); each start signs a fresh server certificate (one
// year) for the names the sandbox answers to: localhost, 127.0.0.1, ::1, this machine's host name and the
// --host given. The CA is limited to those names (name constraints) and to signing servers (path length 0). Node has no API to write a certificate, so the few DER structures of X.509 are written here
// (RFC 5280) and signed with node:crypto; Node's own X509Certificate reads them back in the tests.
import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface SandboxTls {
  /** The server's certificate (PEM) and its key (PEM), for https.createServer. */
  cert: string;
  key: string;
  /** The CA certificate to trust. */
  caFile: string;
  /** The CA was made at this start (none yet, expiring, or the names outgrew it): it must be trusted anew. */
  newCa: boolean;
}

const DAY = 86_400_000;

/**
 * The CA in `dir` (made on first use), and a new server certificate signed by it for `names`, valid from
 * `now` (the injected clock's time: real time, as the TLS clients that check it keep). The CA may sign for
 * the names the sandbox serves and nothing else (name constraints, no CA below it): were its key to leak,
 * it could not vouch for another site. Names it was not made for make a new CA.
 */
export function sandboxTls(dir: string, names: string[], now: number): SandboxTls {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, 'ca.pem');
  const caKeyFile = join(dir, 'ca-key.pem');
  const caNamesFile = join(dir, 'ca-names.json');
  const served = [
    ...new Set(
      ['localhost', '127.0.0.1', '::1', hostname(), ...names].filter((n) => n && n !== '0.0.0.0' && n !== '::'),
    ),
  ];
  let caCert: string;
  let caKey: KeyObject;
  let made = false;
  const kept = existsSync(caFile) && existsSync(caKeyFile) ? caNamesOf(caNamesFile) : null;
  if (
    kept &&
    served.every((n) => kept.includes(n)) &&
    Date.parse(new X509Certificate(readFileSync(caFile, 'utf8')).validTo) >= now + 30 * DAY
  ) {
    caCert = readFileSync(caFile, 'utf8');
    caKey = createPrivateKey(readFileSync(caKeyFile, 'utf8'));
  } else {
    // The CA may sign for what it signed for before too, so a second sandbox on other names keeps working.
    ({ caCert, caKey } = newCa(caFile, caKeyFile, caNamesFile, now, [...new Set([...(kept ?? []), ...served])]));
    made = true;
  }
  const ca = new X509Certificate(caCert);
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const cert = certificate({
    subject: 'orc sandbox',
    issuer: ca.subject.replace(/^CN=/, ''),
    publicKey,
    signer: caKey,
    issuerKeyId: keyId(ca.publicKey),
    from: now - DAY,
    to: now + 365 * DAY,
    ca: false,
    names: served,
  });
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, caFile, newCa: made };
}

/** The names a kept CA may sign for; null for a CA made before it had name constraints (made anew). */
function caNamesOf(file: string): string[] | null {
  try {
    const names: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(names) && names.every((n) => typeof n === 'string') ? names : null;
  } catch {
    return null;
  }
}

function newCa(
  caFile: string,
  caKeyFile: string,
  caNamesFile: string,
  now: number,
  names: string[],
): { caCert: string; caKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = `orc sandbox CA ${randomBytes(4).toString('hex')}`;
  const caCert = certificate({
    subject: name,
    issuer: name,
    publicKey,
    signer: privateKey,
    issuerKeyId: keyId(publicKey),
    from: now - DAY,
    to: now + 3650 * DAY,
    ca: true,
    names,
  });
  // Each written whole or not at all (a temporary file renamed over), the key 0600; the key first, so a
  // ca.pem is never there without the key that signs for it.
  writeWhole(caKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 0o600);
  writeWhole(caNamesFile, JSON.stringify(names), 0o600);
  writeWhole(caFile, caCert, 0o644);
  return { caCert, caKey: privateKey };
}

function writeWhole(file: string, text: string, mode: number): void {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode, flag: 'wx' });
  renameSync(tmp, file);
}

interface CertSpec {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signer: KeyObject;
  issuerKeyId: Buffer;
  from: number;
  to: number;
  ca: boolean;
  names: string[];
}

/** An X.509 v3 certificate, ECDSA with SHA-256, as PEM. */
function certificate(c: CertSpec): string {
  const spki = c.publicKey.export({ type: 'spki', format: 'der' });
  const extensions = [
    // basicConstraints: a CA with no CA below it (pathLenConstraint 0), or not a CA.
    ext('2.5.29.19', true, seq(c.ca ? [tlv(0x01, Buffer.from([0xff])), integer(Buffer.from([0]))] : [])),
    // keyUsage: keyCertSign and cRLSign for the CA; digitalSignature for the server.
    ext('2.5.29.15', true, c.ca ? Buffer.from([0x03, 0x02, 0x01, 0x06]) : Buffer.from([0x03, 0x02, 0x07, 0x80])),
    ext('2.5.29.14', false, tlv(0x04, keyId(c.publicKey))),
    ext('2.5.29.35', false, seq([tlv(0x80, c.issuerKeyId)])),
  ];
  if (!c.ca) {
    extensions.push(ext('2.5.29.37', false, seq([oid('1.3.6.1.5.5.7.3.1')])));
    extensions.push(
      ext(
        '2.5.29.17',
        false,
        seq(c.names.map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii'))))),
      ),
    );
  } else {
    // nameConstraints (RFC 5280, 4.2.1.10), critical: permitted subtrees, each name exactly (an address
    // with a mask of all ones).
    const subtree = (n: string) =>
      seq([
        isIP(n)
          ? tlv(0x87, Buffer.concat([ipBytes(n), Buffer.alloc(ipBytes(n).length, 0xff)]))
          : tlv(0x82, Buffer.from(n, 'ascii')),
      ]);
    extensions.push(ext('2.5.29.30', true, seq([tlv(0xa0, Buffer.concat(c.names.map(subtree)))])));
  }
  const algorithm = seq([oid('1.2.840.10045.4.3.2')]);
  // A positive serial in minimal DER: the first byte neither has its top bit set (which would make it
  // negative) nor is zero (a leading zero byte is "illegal padding" to OpenSSL, 1 serial in 128).
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f || 1;
  const tbs = seq([
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    algorithm,
    name(c.issuer),
    seq([time(c.from), time(c.to)]),
    name(c.subject),
    spki,
    tlv(0xa3, seq(extensions)),
  ]);
  const signature = sign('sha256', tbs, c.signer);
  const der = seq([tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature]))]);
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
}

/** The subject key identifier: SHA-1 of the public key's bits (RFC 5280, 4.2.1.2, method 1). */
function keyId(key: KeyObject): Buffer {
  const spki = key.export({ type: 'spki', format: 'der' });
  // The key's bits are the SPKI's last element, a BIT STRING; for P-256 the last 65 bytes.
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, content]);
}

const seq = (items: Buffer[]) => tlv(0x30, Buffer.concat(items));

function integer(bytes: Buffer): Buffer {
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a! + b!];
  for (const n of rest) {
    const parts = [n & 0x7f];
    for (let v = n >>> 7; v > 0; v >>>= 7) parts.unshift((v & 0x7f) | 0x80);
    out.push(...parts);
  }
  return tlv(0x06, Buffer.from(out));
}

function ext(id: string, critical: boolean, value: Buffer): Buffer {
  return seq([oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value)]);
}

/** A name of one common name, as UTF8String. */
function name(cn: string): Buffer {
  return seq([tlv(0x31, seq([oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8'))]))]);
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280, 4.1.2.5). */
function time(ms: number): Buffer {
  const iso = new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return Number(iso.slice(0, 4)) < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${iso}Z`));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}
