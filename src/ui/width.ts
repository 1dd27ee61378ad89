// Widths in terminal columns, not characters: a CJK character or most emoji take two columns, a combining
// mark none, colour codes none. string-width (the library chalk's, ora's and inquirer's authors keep)
// knows the Unicode tables; this file cuts and pads by them, one grapheme at a time.
import stringWidth from 'string-width';

/** Graphemes (ICU's segmenter, made when first needed: most text is measured without it). */
let segmenter: Intl.Segmenter | undefined;
const graphemes = { segment: (text: string) => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text) };

/** Printable ASCII only: one column a character, no table needed (most of what a terminal shows). */
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * Characters that take one column alone, whatever follows them but a combining mark (which is not one of
 * these, so a string holding one is measured by the table): Latin-1 and Latin letters and signs, the
 * punctuation orc draws with (· … – — ‘ ’ “ ” •), arrows, box drawing, blocks and most geometric shapes
 * (▸ █ ░ ─ │), the ticks ✓ ✗. string-width reaches these through its emoji pattern, whose compilation alone
 * took 14–40 ms the first time a frame was drawn. test/unit/ui.test.ts checks every one against it.
 */
const NARROW = /^[\x20-\x7e\u00a1-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u25fc\u2713-\u2718]*$/;

/** How many terminal columns `text` takes (escape sequences take none). */
export function displayWidth(text: string): number {
  return PLAIN.test(text) || NARROW.test(text) ? text.length : stringWidth(text);
}

/** The columns of one grapheme. */
function graphemeWidth(segment: string): number {
  return segment.length === 1 && NARROW.test(segment) ? 1 : stringWidth(segment);
}

/** `text` cut to `width` columns, with `mark` (…) in the last one when it was cut; else padded with spaces. */
export function fitColumns(text: string, width: number, mark = '…'): string {
  const w = displayWidth(text);
  if (w <= width) return text + ' '.repeat(width - w);
  let out = '';
  let used = 0;
  const room = Math.max(0, width - displayWidth(mark));
  for (const { segment } of graphemes.segment(text)) {
    const sw = graphemeWidth(segment);
    if (used + sw > room) break;
    out += segment;
    used += sw;
  }
  return `${out}${mark}${' '.repeat(Math.max(0, width - used - displayWidth(mark)))}`;
}

/** The first `width` columns of `line`, with `mark` (… or nothing) where it was cut; colour codes (SGR) are kept. */
export function clipVisible(line: string, width: number, mark = ''): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length; ) {
    if (line[i] === '\u001b') {
      const end = line.indexOf('m', i);
      if (end > 0) {
        out += line.slice(i, end + 1);
        i = end + 1;
        continue;
      }
    }
    // A printable ASCII character not followed by anything it could combine with: one column, as it is.
    const c = line.charCodeAt(i);
    const after = i + 1 < line.length ? line.charCodeAt(i + 1) : 0x20;
    if (c >= 0x20 && c <= 0x7e && after < 0x7f) {
      if (visible + 1 > width) return `${out}${mark}${out.includes('\u001b') ? '\u001b[0m' : ''}`;
      out += line[i];
      visible++;
      i++;
      continue;
    }
    // The next grapheme (up to the next escape), measured in columns.
    const next = line.indexOf('\u001b', i + 1);
    const rest = line.slice(i, next < 0 ? undefined : next);
    const { segment } = graphemes.segment(rest)[Symbol.iterator]().next().value!;
    const w = graphemeWidth(segment);
    if (visible + w > width) return `${out}${mark}${out.includes('\u001b') ? '\u001b[0m' : ''}`;
    out += segment;
    visible += w;
    i += segment.length;
  }
  return out;
}
