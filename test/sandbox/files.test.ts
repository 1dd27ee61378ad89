// The screenshots as PNGs: the store's sizes, the spec's text drawn in its palette, the same bytes for the same
// inputs, and any string from a spec drawn without throwing or spilling past the screen.
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SCREENSHOT_SIZES, screenshotMetas, screenshotName, screenshotPng } from '../../src/sandbox/files.js';
import type { ScreenshotInputs } from '../../src/sandbox/phone-screen.js';

const inputs: ScreenshotInputs = {
  name: 'Trail Log',
  screens: [
    { id: 'home', title: 'Today', purpose: 'What matters right now' },
    { id: 'stats', title: 'Progress', purpose: 'Trends over weeks' },
  ],
  features: ['Offline maps', 'Split times', 'Shared routes'],
  palette: ['#9D1540', '#C43717', '#35D09E', '#F6F4F4'],
};

/** Width, height and RGB pixels of an 8-bit RGB PNG, every filter undone. */
function decode(png: Buffer): { width: number; height: number; px: (x: number, y: number) => string } {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 3;
  expect(raw.length).toBe(height * (stride + 1));
  const img = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const a = i >= 3 ? img[y * stride + i - 3]! : 0;
      const b = y > 0 ? img[(y - 1) * stride + i]! : 0;
      const c = i >= 3 && y > 0 ? img[(y - 1) * stride + i - 3]! : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f]!;
      img[y * stride + i] = (raw[y * (stride + 1) + 1 + i]! + pred) & 255;
    }
  }
  const px = (x: number, y: number) =>
    `#${img
      .subarray((y * width + x) * 3, (y * width + x) * 3 + 3)
      .toString('hex')
      .toUpperCase()}`;
  return { width, height, px };
}

/** The pixels of colour `hex` in rows y0..y1 and where the rightmost of them is. */
function inRows(img: ReturnType<typeof decode>, hex: string, y0: number, y1: number) {
  let count = 0;
  let right = -1;
  for (let y = y0; y < y1; y++)
    for (let x = 0; x < img.width; x++)
      if (img.px(x, y) === hex) {
        count++;
        right = Math.max(right, x);
      }
  return { count, right };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
// The title's band on the 6.9" screen: 11 px a unit, from y 290 (see phone-screen.ts heading()).
const TITLE = [290, 290 + 7 * 11] as const;

describe('screenshots', () => {
  it('are drawn at the App Store\'s two required iPhone sizes, 6.9" and 6.5"', async () => {
    for (const size of SCREENSHOT_SIZES) {
      const img = decode(await screenshotPng(inputs, 0, size));
      expect([img.width, img.height]).toEqual([size.width, size.height]);
    }
    expect(SCREENSHOT_SIZES.map((s) => [s.width, s.height])).toEqual([
      [1320, 2868],
      [1242, 2688],
    ]);
  });

  it('draw the title as text in the primary colour, on the last colour as the background', async () => {
    const img = decode(await screenshotPng(inputs, 0));
    expect(img.px(5, 5)).toBe('#F6F4F4');
    const title = inRows(img, '#9D1540', ...TITLE);
    expect(title.count).toBeGreaterThan(2000);
    // a longer title inks more of its band, and another screen's title differs
    const longer = decode(
      await screenshotPng({ ...inputs, screens: [{ id: 'home', title: 'Today and tomorrow' }] }, 0),
    );
    expect(inRows(longer, '#9D1540', ...TITLE).right).toBeGreaterThan(title.right + 300);
    // the rows between the status bar and the app's name are background only
    expect(inRows(img, '#9D1540', 140, 190).count).toBe(0);
  });

  it('are the same bytes for the same inputs, and differ when the palette or a title does', async () => {
    const a = sha(await screenshotPng(inputs, 1));
    expect(sha(await screenshotPng(structuredClone(inputs), 1))).toBe(a);
    expect(sha(await screenshotPng({ ...inputs, palette: ['#112233', ...inputs.palette.slice(1)] }, 1))).not.toBe(a);
    const retitled = inputs.screens.map((s) => (s.id === 'stats' ? { ...s, title: 'Trends' } : s));
    expect(sha(await screenshotPng({ ...inputs, screens: retitled }, 1))).not.toBe(a);
  });

  it('draw any string from a spec without throwing, cut with an ellipsis inside the screen', async () => {
    const hostile = [
      'x'.repeat(10_000),
      '🚀🎉 Ünïcødé — “quotes” …',
      'مرحبا بالعالم שלום',
      'bell\x07 nul\0 esc\x1b[31m tab\t new\nline\u200b\u202e',
      '\ud800 lone surrogate',
      '',
    ];
    for (const s of hostile) {
      const spec: ScreenshotInputs = {
        name: s,
        screens: [{ id: s || 'x', title: s, purpose: s }],
        features: Array.from({ length: 200 }, () => s),
        palette: ['#000000'],
      };
      expect(decode(await screenshotPng(spec, 0)).width).toBe(1320);
      const small = await screenshotPng(spec, 0, SCREENSHOT_SIZES[1]);
      expect([small.readUInt32BE(16), small.readUInt32BE(20)]).toEqual([1242, 2688]);
    }
    const long = decode(await screenshotPng({ ...inputs, screens: [{ id: 'home', title: 'W'.repeat(10_000) }] }, 0));
    const title = inRows(long, '#9D1540', ...TITLE);
    expect(title.count).toBeGreaterThan(2000);
    expect(title.right).toBeLessThan(1320 - 72); // the right margin stays clear
  });

  it('are described two files a screen, named so they sort by screen then size, ids made safe', async () => {
    const three = { ...inputs, screens: [...inputs.screens, { id: '../../etc passwd' }] };
    const metas = await screenshotMetas(three);
    expect(metas.map((m) => m.name)).toEqual([
      '01_home_6.9in.png',
      '01_home_6.5in.png',
      '02_stats_6.9in.png',
      '02_stats_6.5in.png',
      '03_______etc_passwd_6.9in.png',
      '03_______etc_passwd_6.5in.png',
    ]);
    expect(screenshotName('a/b', 9, '6.9in')).toBe('10_a_b_6.9in.png');
    expect(metas[4]!.sha256).toBe(sha(await screenshotPng(three, 2, SCREENSHOT_SIZES[0])));
    expect(metas[5]!.sha256).toBe(sha(await screenshotPng(three, 2, SCREENSHOT_SIZES[1])));
  });
});
