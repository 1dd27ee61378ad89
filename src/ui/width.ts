// Widths in terminal columns, not characters: a CJK character or most emoji take two columns, a combining
// mark none, colour codes none. string-width (the library chalk's, ora's and inquirer's authors keep)
// knows the Unicode tables; this file cuts and pads by them, one grapheme at a time.
import stringWidth from 'string-width';

/** Graphemes (ICU's segmenter, made when first needed: most text is measured without it). */
let segmenter: Intl.Segmenter | undefined;
const graphemes = {
  segment: (text: string) => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text),
};

/** Printable ASCII only: one column a character, no table needed (most of what a terminal shows). */
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * Characters that take one column alone, whatever follows them but a combining mark (which is not one of
 * these, so a string holding one is measured by the table): Latin-1 and Latin letters and signs, the
 * punctuation orc draws with (· … – — ‘ ’ “ ” •), arrows, box drawing, blocks and most geometric shapes
 * (▸ █ ░ ─ │), the ticks ✓ ✗. string-width reaches these through its emoji pattern, whose compilation alone
 * delayed the first frame drawn (docs/figures.md). test/ui/output.test.ts checks every one against it.
 */
const NARROW =
  /^[\x20-\x7e\u00a1-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u25fc\u2713-\u2718]*$/;

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

/**
 * The length of the escape sequence at `i` (an ESC), 0 when it is not a whole one. ECMA-48's shapes: CSI
 * (`ESC [` parameters, intermediates, one final byte: colours end in `m`, erasing in `K` or `J`), OSC and
 * the other strings (`ESC ]` … BEL or `ESC \`), else ESC and one byte. Finding the next `m` instead took
 * the text after `ESC [2K` for part of an escape.
 */
function escapeLength(line: string, i: number): number {
  const kind = line[i + 1];
  if (kind === undefined) return 0;
  if (kind === '[') {
    let j = i + 2;
    while (j < line.length && /[\x30-\x3f]/.test(line[j]!)) j++;
    while (j < line.length && /[\x20-\x2f]/.test(line[j]!)) j++;
    return j < line.length && /[\x40-\x7e]/.test(line[j]!) ? j + 1 - i : 0;
  }
  if (kind === ']' || kind === 'P' || kind === '_' || kind === '^' || kind === 'X') {
    const m = /\u0007|\u001b\\/.exec(line.slice(i + 2));
    return m ? i + 2 + m.index + m[0].length - i : 0;
  }
  return 2;
}

/** The first `width` columns of `line`, with `mark` (… or nothing) where it was cut; escape sequences are kept. */
export function clipVisible(line: string, width: number, mark = ''): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length; ) {
    const esc = line[i] === '\u001b' ? escapeLength(line, i) : 0;
    if (esc > 0) {
      out += line.slice(i, i + esc);
      i += esc;
      continue;
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

/** Words to lines of at most `width` columns, each after `indent` spaces (a word wider than that stands alone). */
export function wrapWords(text: string, indent: number, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && indent + displayWidth(line) + 1 + displayWidth(word) > width) {
      lines.push(`${' '.repeat(indent)}${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(`${' '.repeat(indent)}${line}`);
  return lines;
}
