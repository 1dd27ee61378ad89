// Binary artifacts of the sandbox: real PNG screenshots and a real (stored) zip as the ipa, made by
// deterministic generators and streamed, never held whole; signed URLs and Range.
import { createCipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { constants, crc32, createDeflate } from 'node:zlib';
import { flatMemory } from '../lib/memory.js';
import { PhoneScreen, type ScreenshotInputs } from './phone-screen.js';

/** What a file is, computed once when its artifact became ready and kept with the run. */
export interface FileMeta {
  name: string;
  content_type: string;
  size: number;
  sha256: string;
}

/** Pieces of work between which the event loop gets its turn: big files never stall the API. */
const SLICE = 256 * 1024;
/** The plaintext AES-CTR turns into keystream: zeros, allocated once. */
const ZEROS = Buffer.alloc(SLICE + 16);
const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

// ---------- PNG ----------

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** The App Store's required iPhone screenshot sizes (App Store Connect, "Screenshot specifications"). */
export const SCREENSHOT_SIZES = [
  { label: '6.9in', width: 1320, height: 2868 },
  { label: '6.5in', width: 1242, height: 2688 },
] as const;
export type ScreenshotSize = { label: string; width: number; height: number };

/** One screen of the spec as a PNG of `size` (by default the 6.9" one). Rows are deflated on libuv's threads as
 * they are painted, so making one neither holds the raw image nor holds up the event loop. */
export async function screenshotPng(
  inputs: ScreenshotInputs,
  screenIndex: number,
  size: ScreenshotSize = SCREENSHOT_SIZES[0],
): Promise<Buffer> {
  const screen = new PhoneScreen(inputs, screenIndex, size.width, size.height);
  return pngFile(size.width, size.height, await deflateRows(screen));
}

/**
 * Rows painted between two writes to the deflater: about 1 MB of raw image. Each write is a trip to libuv's
 * threads and back, and on a machine whose cores are busy each trip waits for both to be scheduled (tens of
 * milliseconds): 64 rows a write made a run's ten screenshots 450 trips, half a minute under load; 256 make
 * it 110. Painting them takes under a millisecond, so requests still get their turn between writes.
 */
const ROWS_PER_WRITE = 256;

/** Rows go to the deflater ROWS_PER_WRITE at a time: the raw image never exists whole. A row that looks like the one above
 * is sent as PNG's "Up" filter (all zeros), any other with the "Sub" filter (zeros wherever a colour runs on):
 * zlib's run-length strategy then deflates a screen in a quarter of the time of its default, as small. */
async function deflateRows(screen: PhoneScreen): Promise<Buffer> {
  const stride = 1 + screen.width * 3;
  const z = createDeflate({ strategy: constants.Z_RLE });
  const compressed: Buffer[] = [];
  z.on('data', (c: Buffer) => compressed.push(c));
  const ended = new Promise<void>((resolve, reject) => (z.once('end', resolve), z.once('error', reject)));
  let previous: string | null = null;
  for (let y0 = 0; y0 < screen.height; y0 += ROWS_PER_WRITE) {
    const batch = Buffer.alloc(Math.min(ROWS_PER_WRITE, screen.height - y0) * stride);
    for (let y = y0, at = 0; y < y0 + ROWS_PER_WRITE && y < screen.height; y++, at += stride) {
      const look = screen.rowLook(y);
      if (look === previous) batch[at] = 2;
      else {
        screen.paintRow(y, batch, at + 1);
        batch[at] = 1;
        for (let i = at + stride - 1; i > at + 3; i--) batch[i] = (batch[i]! - batch[i - 3]!) & 255;
      }
      previous = look;
    }
    if (!z.write(batch)) await new Promise((resolve) => z.once('drain', resolve));
    else await yieldTurn(); // requests get their turn between batches
  }
  z.end();
  await ended;
  return Buffer.concat(compressed);
}

function pngFile(width: number, height: number, idat: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A screenshot's file name: screen number, the screen's id made safe, the size; they sort by screen, then size. */
export function screenshotName(screenId: string, index: number, size: string): string {
  return `${String(index + 1).padStart(2, '0')}_${screenId.replace(/[^\w-]/g, '_')}_${size}.png`;
}

/** Name, size and digest of each screenshot (every screen at every size, in that order), made once. */
export async function screenshotMetas(inputs: ScreenshotInputs): Promise<FileMeta[]> {
  const out: FileMeta[] = [];
  for (let i = 0; i < inputs.screens.length; i++)
    for (const size of SCREENSHOT_SIZES) {
      const png = await screenshotPng(inputs, i, size);
      out.push({
        name: screenshotName(inputs.screens[i]!.id, i, size.label),
        content_type: 'image/png',
        size: png.length,
        sha256: createHash('sha256').update(png).digest('hex'),
      });
    }
  return out;
}

// ---------- ipa (a zip, entries stored) ----------

interface IpaEntry {
  name: string;
  size: number;
  /** The plist's bytes; the other entries are AES-CTR bytes keyed by `label`, made at any offset on demand. */
  bytes?: Buffer;
  label?: string;
  executable?: boolean;
}

/** Everything that decides an ipa's bytes: from it, any range of the file can be made without the rest. */
export interface IpaLayout {
  name: string;
  entries: IpaEntry[];
  /** CRC-32 of each entry, computed once (the headers carry them). */
  crcs: number[];
  size: number;
}

/** Deterministic incompressible bytes at an offset: AES-CTR keystream, keyed by what the bytes are for. */
function pseudoRandomAt(label: string, offset: number, length: number): Buffer {
  const key = createHash('sha256').update(label).digest().subarray(0, 16);
  const block = Math.floor(offset / 16);
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(Math.floor(block / 2 ** 32), 8);
  iv.writeUInt32BE(block % 2 ** 32, 12);
  const skip = offset - block * 16;
  const zeros = length + skip <= ZEROS.length ? ZEROS.subarray(0, length + skip) : Buffer.alloc(length + skip);
  return createCipheriv('aes-128-ctr', key, iv).update(zeros).subarray(skip);
}

const HEADER = 30;
const CENTRAL = 46;
const END = 22;
const DOS_TIME = 0x6000; // 12:00:00
const DOS_DATE = ((2026 - 1980) << 9) | (11 << 5) | 22;

/** An ipa of `mib` MiB (Payload/<App>.app with Info.plist, a binary and an asset catalog); CRCs still to come. */
export function ipaLayout(
  spec: { name: string; bundle_id?: string | undefined },
  label: string,
  mib: number,
): Omit<IpaLayout, 'crcs' | 'size'> {
  const app = spec.name.replace(/[^\w]/g, '') || 'App';
  const plist = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleName</key><string>${escapeXml(spec.name)}</string>
<key>CFBundleIdentifier</key><string>${escapeXml(spec.bundle_id ?? `com.example.${app.toLowerCase()}`)}</string>
<key>CFBundleShortVersionString</key><string>1.0.0</string>
<key>CFBundleVersion</key><string>1</string>
<key>CFBundleExecutable</key><string>${app}</string>
<key>MinimumOSVersion</key><string>17.0</string>
</dict></plist>
`);
  const total = Math.max(1, Math.round(mib * 1024 * 1024));
  const binary = Math.floor(total * 0.7);
  return {
    name: `${app}.ipa`,
    entries: [
      { name: `Payload/${app}.app/Info.plist`, size: plist.length, bytes: plist },
      { name: `Payload/${app}.app/${app}`, size: binary, label: `${label}:bin`, executable: true },
      { name: `Payload/${app}.app/Assets.car`, size: Math.max(0, total - binary), label: `${label}:assets` },
    ],
  };
}

/** The bytes of an entry from `offset`, `length` long. */
function entryBytes(e: IpaEntry, offset: number, length: number): Buffer {
  return e.bytes ? e.bytes.subarray(offset, offset + length) : pseudoRandomAt(e.label!, offset, length);
}

/** The CRCs (one pass over the bytes) and so the whole layout; in slices, the event loop free between them. */
export async function completeIpa(layout: Omit<IpaLayout, 'crcs' | 'size'>): Promise<IpaLayout> {
  const crcs: number[] = [];
  const flat = flatMemory();
  for (const e of layout.entries) {
    let crc = 0;
    for (let at = 0; at < e.size; at += SLICE) {
      crc = crc32(entryBytes(e, at, Math.min(SLICE, e.size - at)), crc);
      flat(SLICE);
      if (e.size > SLICE) await yieldTurn();
    }
    crcs.push(crc >>> 0);
  }
  const names = layout.entries.map((e) => Buffer.byteLength(e.name));
  const size = layout.entries.reduce((n, e, i) => n + HEADER + names[i]! + e.size + CENTRAL + names[i]!, 0) + END;
  return { ...layout, crcs, size };
}

/** The file as segments in order: [length, make(offset within, length)]. */
function segments(layout: IpaLayout): Array<[number, (at: number, n: number) => Buffer]> {
  const out: Array<[number, (at: number, n: number) => Buffer]> = [];
  const central: Buffer[] = [];
  let offset = 0;
  layout.entries.forEach((e, i) => {
    const name = Buffer.from(e.name, 'utf8');
    const crc = layout.crcs[i]!;
    const local = Buffer.alloc(HEADER);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.size, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const cen = Buffer.alloc(CENTRAL);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(0x0800, 8);
    cen.writeUInt16LE(DOS_TIME, 12);
    cen.writeUInt16LE(DOS_DATE, 14);
    cen.writeUInt32LE(crc, 16);
    cen.writeUInt32LE(e.size, 20);
    cen.writeUInt32LE(e.size, 24);
    cen.writeUInt16LE(name.length, 28);
    cen.writeUInt32LE(((e.executable ? 0o100755 : 0o100644) << 16) >>> 0, 38);
    cen.writeUInt32LE(offset, 42);
    const head = Buffer.concat([local, name]);
    out.push([head.length, (at, n) => head.subarray(at, at + n)]);
    out.push([e.size, (at, n) => entryBytes(e, at, n)]);
    central.push(cen, name);
    offset += head.length + e.size;
  });
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(END);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(layout.entries.length, 8);
  end.writeUInt16LE(layout.entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  const tail = Buffer.concat([cd, end]);
  out.push([tail.length, (at, n) => tail.subarray(at, at + n)]);
  return out;
}

/** Bytes `start`..`end` (inclusive) of the ipa, a slice at a time. */
export async function* ipaBytes(layout: IpaLayout, start = 0, end = layout.size - 1): AsyncGenerator<Buffer> {
  let base = 0;
  for (const [length, make] of segments(layout)) {
    const from = Math.max(start, base);
    const to = Math.min(end, base + length - 1);
    for (let at = from; at <= to; at += SLICE) yield make(at - base, Math.min(SLICE, to - at + 1));
    base += length;
    if (base > end) return;
  }
}

/** The ipa's SHA-256, read through once in slices. */
export async function ipaSha256(layout: IpaLayout): Promise<string> {
  const hash = createHash('sha256');
  const flat = flatMemory();
  for await (const piece of ipaBytes(layout)) {
    hash.update(piece);
    flat(piece.length);
    await yieldTurn();
  }
  return hash.digest('hex');
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// ---------- signed URLs ----------

export function signPath(secret: string, path: string, expiresAtS: number): string {
  return createHmac('sha256', secret).update(`${path}\n${expiresAtS}`).digest('hex');
}

export type SignedCheck = 'ok' | 'invalid' | 'expired';
export function checkSignedPath(
  secret: string,
  path: string,
  exp: string | null,
  sig: string | null,
  nowMs: number,
): SignedCheck {
  if (!exp || !sig || !/^\d{1,12}$/.test(exp) || !/^[0-9a-f]{64}$/.test(sig)) return 'invalid';
  const expected = Buffer.from(signPath(secret, path, Number(exp)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'invalid';
  return Number(exp) * 1000 < nowMs ? 'expired' : 'ok';
}

// ---------- Range ----------

/** One `bytes=` range (RFC 9110). Several ranges are answered whole (allowed by the RFC); a bad one is ignored. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
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
