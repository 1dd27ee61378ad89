// Server text must not drive the terminal: escape sequences and controls are removed, text is kept.
import { describe, expect, it } from 'vitest';
import { parseServiceJson, sanitize, sanitizeLine } from '../../src/lib/sanitize.js';

describe('sanitize', () => {
  it.each([
    ['colour', 'a\u001b[31mred\u001b[0m b', 'ared b'],
    ['cursor movement and clear screen', 'x\u001b[2J\u001b[H\u001b[10;20Hy', 'xy'],
    ['window title (OSC, BEL)', '\u001b]0;pwned\u0007text', 'text'],
    ['hyperlink (OSC 8, ST)', '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\', 'click'],
    ['8-bit CSI', 'a\u009b31mb', 'ab'],
    ['DCS string', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['backspace and carriage return tricks', 'safe\rrm -rf\b\b', 'saferm -rf'],
    ['NUL and DEL', 'a\u0000b\u007fc', 'abc'],
    ['a lone ESC at the end', 'abc\u001b', 'abc'],
    ['bidi overrides and isolates', 'a\u202eb\u2066c', 'abc'],
    ['the bidi marks LRM, RLM and ALM', 'a\u200eb\u200fc\u061cd', 'abcd'],
  ])('removes %s', (_name, input, out) => {
    expect(sanitize(input)).toBe(out);
  });

  it('keeps newlines, tabs and non-ASCII text', () => {
    expect(sanitize('line 1\n\tline 2 — ünïcödé 🚀')).toBe('line 1\n\tline 2 — ünïcödé 🚀');
  });

  it('folds newlines for one-line values', () => {
    expect(sanitizeLine('name\nwith\ttabs\u001b[1m')).toBe('name with tabs');
  });
});

describe('parseServiceJson: the boundary where service text enters orc', () => {
  it('sanitises every string value and key, however deep, and says that it did', () => {
    const seen: { dirty?: boolean } = {};
    const body = JSON.stringify({
      name: 'a\u001b]0;x\u0007b',
      list: [{ 'k\u001b[2J': 'c\u009b31md' }],
      n: 1,
      ok: true,
      none: null,
    });
    expect(parseServiceJson(body, seen)).toEqual({ name: 'ab', list: [{ k: 'cd' }], n: 1, ok: true, none: null });
    expect(seen.dirty).toBe(true);
  });

  it('leaves clean JSON as it is (newlines in a value kept), and not dirty', () => {
    const seen: { dirty?: boolean } = {};
    expect(parseServiceJson('{"a":"line\\nnext \\\\u ü","b":[1,2]}', seen)).toEqual({
      a: 'line\nnext \\u ü',
      b: [1, 2],
    });
    expect(seen.dirty).toBeUndefined();
  });
});
