// A 5-wide bitmap font for the sandbox's screenshots: printable ASCII, drawn scaled up, proportional, with
// an ellipsis for text that does not fit; any other character becomes its ASCII base letter or a box.

/** Rows per glyph: 7 above the baseline, 2 for descenders. */
export const GLYPH_ROWS = 9;
/** Units from one line's top to the next's (the glyph's rows and a gap). */
export const LINE_UNITS = 12;

/**
 * '!' to '~' in ASCII order, one glyph per word: each pair of hex digits is a row from the top, bit 4 the
 * leftmost column; rows left out are blank.
 */
const ASCII =
  '04040404040004 0a0a0a 0a0a1f0a1f0a0a 040f140e051e04 18190204081303 0c12140815120d 040408 02040808080402 ' +
  '08040202020408 0004150e1504 0004041f0404 00000000000c0408 0000001f 00000000000c0c 000102040810 ' +
  '0e11131519110e 040c040404040e 0e11010204081f 1f02040201110e 02060a121f0202 1f101e0101110e ' +
  '0608101e11110e 1f010204080808 0e11110e11110e 0e11110f01020c 000c0c000c0c 000c0c000c0408 ' +
  '02040810080402 00001f001f 08040201020408 0e110102040004 0e11010d15150e 0e11111f111111 1e11111e11111e ' +
  '0e11101010110e 1c12111111121c 1f10101e10101f 1f10101e101010 0e11101711110f 1111111f111111 ' +
  '0e04040404040e 0702020202120c 11121418141211 1010101010101f 111b1515111111 11111915131111 ' +
  '0e11111111110e 1e11111e101010 0e11111115120d 1e11111e141211 0f10100e01011e 1f040404040404 ' +
  '1111111111110e 11111111110a04 1111111515150a 11110a040a1111 11110a04040404 1f01020408101f ' +
  '0e08080808080e 001008040201 0e02020202020e 040a11 0000000000001f 080402 00000e010f110f ' +
  '1010161911111e 00000e1010110e 01010d1311110f 00000e111f100e 0609081c080808 00000f1111110f010e ' +
  '10101619111111 04000c0404040e 02000602020202120c 10101214181412 0c04040404040e 00001a15151515 ' +
  '00001619111111 00000e1111110e 00001e1111111e1010 00000f1111110f0101 00001619101010 00000f100e011e ' +
  '08081c08080906 0000111111130d 00001111110a04 0000111115150a 0000110a040a11 0000111111110f010e ' +
  '00001f0204081f 02040408040402 04040404040404 08040402040408 0000081502';

export interface Glyph {
  rows: number[];
  /** Leftmost inked column, and the columns it takes (a space takes 2). */
  left: number;
  width: number;
}

function glyph(rows: number[]): Glyph {
  const ink = rows.reduce((a, r) => a | r, 0);
  if (ink === 0) return { rows, left: 0, width: 2 };
  let left = 0;
  while (!(ink & (16 >> left))) left++;
  let right = 4;
  while (!(ink & (16 >> right))) right--;
  return { rows, left, width: right - left + 1 };
}

const hexRows = (word: string) =>
  Array.from({ length: word.length / 2 }, (_, i) => Number.parseInt(word.slice(i * 2, i * 2 + 2), 16));
const GLYPHS = new Map<number, Glyph>(ASCII.split(' ').map((word, i) => [0x21 + i, glyph(hexRows(word))]));
GLYPHS.set(0x20, glyph([]));
const ELLIPSIS = glyph([0, 0, 0, 0, 0, 0, 0x15]);
/** What a character outside the font is drawn as. */
export const MISSING = glyph([0x1f, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1f]);
/** Typographic punctuation a spec often has, drawn as its ASCII look-alike. */
const LOOKALIKE: Record<string, string> = { '‘': "'", '’': "'", '“': '"', '”': '"', '–': '-', '—': '-', '…': '...' };

/** The glyphs of `text`: accents dropped, typographic punctuation made ASCII, white space a space, control and
 * invisible characters left out, anything else a box. Stops after `max` glyphs (a long text is cut anyway). */
export function glyphsOf(text: string, max: number): Glyph[] {
  const out: Glyph[] = [];
  for (const ch of text.normalize('NFKD')) {
    if (out.length >= max) break;
    if (/[\p{M}\p{Cc}\p{Cf}]/u.test(ch) && !/\s/.test(ch)) continue;
    const plain = LOOKALIKE[ch] ?? (/\s/.test(ch) ? ' ' : ch);
    for (const c of plain) out.push(GLYPHS.get(c.codePointAt(0)!) ?? MISSING);
  }
  return out;
}

/** A line of text laid out: each glyph's left edge in units from the line's start, and the line's width. */
export interface TextLine {
  glyphs: Array<{ glyph: Glyph; x: number }>;
  width: number;
}

/** Units a glyph takes with the gap after it. */
const advance = (g: Glyph) => g.width + 1;

/** `text` on one line of at most `maxUnits`, cut with an ellipsis if it does not fit (nothing if not even that). */
export function fitLine(text: string, maxUnits: number): TextLine {
  const glyphs = glyphsOf(text, Math.max(0, Math.ceil(maxUnits / 2) + 1));
  const line: TextLine = { glyphs: [], width: 0 };
  let x = 0;
  for (const g of glyphs) {
    line.glyphs.push({ glyph: g, x });
    x += advance(g);
  }
  if (x - 1 <= maxUnits) return { glyphs: line.glyphs, width: Math.max(0, x - 1) };
  const room = maxUnits - advance(ELLIPSIS) + 1;
  if (room < 0) return { glyphs: [], width: 0 };
  const kept = line.glyphs.filter((p) => p.x + advance(p.glyph) <= room);
  while (kept.length && kept.at(-1)!.glyph.rows.length === 0) kept.pop();
  const at = kept.length ? kept.at(-1)!.x + advance(kept.at(-1)!.glyph) : 0;
  return { glyphs: [...kept, { glyph: ELLIPSIS, x: at }], width: at + ELLIPSIS.width };
}

/** Whether `text` fits on one line of `maxUnits` whole. */
const fits = (text: string, maxUnits: number) => fitLine(text, maxUnits).glyphs.at(-1)?.glyph !== ELLIPSIS;

/** `text` in at most `lines` lines of `maxUnits`, broken between words; the last line cut with an ellipsis. */
export function wrapLines(text: string, maxUnits: number, lines: number): TextLine[] {
  const words = text.split(/\s+/).filter(Boolean);
  const out: TextLine[] = [];
  let i = 0;
  while (i < words.length && out.length < lines - 1) {
    let current = words[i++]!;
    while (i < words.length && fits(`${current} ${words[i]}`, maxUnits)) current += ` ${words[i++]}`;
    out.push(fitLine(current, maxUnits));
  }
  if (i < words.length) out.push(fitLine(words.slice(i).join(' '), maxUnits));
  return out;
}
