// Binary artifacts of the sandbox: real PNG screenshots, a real (stored) zip as the ipa, signed URLs and Range.
import { createCipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

export interface BinaryFile {
  name: string;
  content_type: string;
  bytes: Buffer;
  sha256: string;
}

function file(name: string, content_type: string, bytes: Buffer): BinaryFile {
  return { name, content_type, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

// ---------- PNG ----------

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

function rgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.replace('#', ''), 16) || 0;
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** An App Store sized (1290x2796) phone screen: status bar, header, cards, tab bar in the run's palette. */
export function screenshotPng(palette: readonly string[], screenIndex: number, width = 1290, height = 2796): Buffer {
  const colors = (palette.length ? palette : ['#3366CC', '#5588EE', '#22AA88', '#114477', '#F5F5F7']).map(rgb);
  const c = (i: number) => colors[i % colors.length]!;
  const bg = c(4);
  const stride = 1 + width * 3;
  const rowCache = new Map<string, Buffer>();
  const row = (spans: Array<[number, number, [number, number, number]]>, fill: [number, number, number]) => {
    const key = JSON.stringify([spans, fill]);
    let r = rowCache.get(key);
    if (!r) {
      r = Buffer.alloc(stride);
      for (let x = 0; x < width; x++) r.set(fill, 1 + x * 3);
      for (const [x0, x1, col] of spans) for (let x = x0; x < x1; x++) r.set(col, 1 + x * 3);
      rowCache.set(key, r);
    }
    return r;
  };
  const raw = Buffer.allocUnsafe(stride * height);
  const cards = 2 + (screenIndex % 3);
  const cardTop = 620;
  const cardH = Math.floor((height - cardTop - 260) / cards) - 40;
  for (let y = 0; y < height; y++) {
    let r: Buffer;
    if (y < 140) r = row([], c(3));
    else if (y < 560) r = row([[80, 80 + 200 + screenIndex * 60, c(4)]], c(0));
    else if (y >= height - 200) r = row(Array.from({ length: 4 }, (_, i) => [160 + i * 270, 240 + i * 270, i === screenIndex % 4 ? c(0) : c(3)] as [number, number, [number, number, number]]), c(4));
    else {
      const k = Math.floor((y - cardTop) / (cardH + 40));
      const within = (y - cardTop) % (cardH + 40);
      r = y >= cardTop && k < cards && within < cardH ? row([[80, width - 80, c(1 + ((k + screenIndex) % 2))], [120, 120 + 160, c(0)]], bg) : row([], bg);
    }
    r.copy(raw, y * stride);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

export function screenshotFiles(palette: readonly string[], screenIds: readonly string[]): BinaryFile[] {
  return screenIds.map((id, i) => file(`${String(i + 1).padStart(2, '0')}_${id.replace(/[^\w-]/g, '_')}.png`, 'image/png', screenshotPng(palette, i)));
}

// ---------- ipa (a zip, entries stored) ----------

/** Deterministic incompressible bytes: AES-CTR over zeros, keyed by what the bytes are for. */
function pseudoRandom(label: string, size: number): Buffer {
  const key = createHash('sha256').update(label).digest().subarray(0, 16);
  return createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

function zipStored(entries: Array<{ name: string; data: Buffer; executable?: boolean }>): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const dosTime = 0x6000; // 12:00:00
  const dosDate = ((2026 - 1980) << 9) | (11 << 5) | 22;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(e.data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(0x0800, 8);
    cen.writeUInt16LE(dosTime, 12);
    cen.writeUInt16LE(dosDate, 14);
    cen.writeUInt32LE(crc, 16);
    cen.writeUInt32LE(e.data.length, 20);
    cen.writeUInt32LE(e.data.length, 24);
    cen.writeUInt16LE(name.length, 28);
    cen.writeUInt32LE(((e.executable ? 0o100755 : 0o100644) << 16) >>> 0, 38);
    cen.writeUInt32LE(offset, 42);
    parts.push(local, name, e.data);
    central.push(cen, name);
    offset += local.length + name.length + e.data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

/** An ipa of realistic size (about 18–26 MiB): Payload/<App>.app with Info.plist, a binary and an asset catalog. */
export function ipaFile(spec: { name: string; bundle_id?: string | undefined }, label: string): BinaryFile {
  const app = spec.name.replace(/[^\w]/g, '') || 'App';
  const sizeSeed = createHash('sha256').update(label).digest().readUInt32LE(0);
  const binarySize = 12 * 1024 * 1024 + (sizeSeed % (6 * 1024 * 1024));
  const assetsSize = 6 * 1024 * 1024 + ((sizeSeed >>> 8) % (2 * 1024 * 1024));
  const plist = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleName</key><string>${escapeXml(spec.name)}</string>
<key>CFBundleIdentifier</key><string>${escapeXml(spec.bundle_id ?? `com.example.${app.toLowerCase()}`)}</string>
<key>CFBundleShortVersionString</key><string>1.0.0</string>
<key>CFBundleVersion</key><string>1</string>
<key>CFBundleExecutable</key><string>${app}</string>
<key>MinimumOSVersion</key><string>17.0</string>
</dict></plist>
`;
  const bytes = zipStored([
    { name: `Payload/${app}.app/Info.plist`, data: Buffer.from(plist) },
    { name: `Payload/${app}.app/${app}`, data: pseudoRandom(`${label}:bin`, binarySize), executable: true },
    { name: `Payload/${app}.app/Assets.car`, data: pseudoRandom(`${label}:assets`, assetsSize) },
  ]);
  return file(`${app}.ipa`, 'application/octet-stream', bytes);
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// ---------- signed URLs ----------

export function signPath(secret: string, path: string, expiresAtS: number): string {
  return createHmac('sha256', secret).update(`${path}\n${expiresAtS}`).digest('hex');
}

export type SignedCheck = 'ok' | 'invalid' | 'expired';
export function checkSignedPath(secret: string, path: string, exp: string | null, sig: string | null, nowMs = Date.now()): SignedCheck {
  if (!exp || !sig || !/^\d{1,12}$/.test(exp) || !/^[0-9a-f]{64}$/.test(sig)) return 'invalid';
  const expected = Buffer.from(signPath(secret, path, Number(exp)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'invalid';
  return Number(exp) * 1000 < nowMs ? 'expired' : 'ok';
}

// ---------- Range ----------

/** One `bytes=` range (RFC 9110). Several ranges are answered whole (allowed by the RFC); a bad one is ignored. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a, b] = m;
  if (a === '' && b === '') return null;
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
