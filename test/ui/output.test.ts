// The output layer: what is a terminal, tables for people and pipes, JSON that cannot drive a terminal.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/api/http.js';
import { relativeTime } from '../../src/ui/format.js';
import { IO } from '../../src/ui/io.js';
import { renderTable } from '../../src/ui/table.js';
import { displayWidth, fitColumns } from '../../src/ui/width.js';

function io(tty: boolean, env: NodeJS.ProcessEnv = {}, flags: { json?: boolean; noInput?: boolean } = {}) {
  const out = Object.assign(new PassThrough(), { isTTY: tty, columns: 60 });
  const err = Object.assign(new PassThrough(), { isTTY: tty });
  const stdin = Object.assign(new PassThrough(), { isTTY: tty });
  const chunks: string[] = [];
  out.on('data', (c) => chunks.push(String(c)));
  return {
    io: new IO(
      { stdin, stdout: out, stderr: err },
      { json: flags.json ?? false, noInput: flags.noInput ?? false, env },
    ),
    stdout: () => chunks.join(''),
  };
}

describe('IO', () => {
  it.each([
    ['a terminal', true, {}, {}, { color: true, animate: true, canPrompt: true }],
    ['a pipe', false, {}, {}, { color: false, animate: false, canPrompt: false }],
    ['CI', true, { CI: 'true' }, {}, { color: false, animate: false, canPrompt: false }],
    ['NO_COLOR', true, { NO_COLOR: '' }, {}, { color: false, animate: false, canPrompt: true }],
    ['--no-input', true, {}, { noInput: true }, { color: false, animate: false, canPrompt: false }],
    ['--json', true, {}, { json: true }, { canPrompt: false }],
  ])('at %s', (_name, tty, env, flags, expected) => {
    expect(io(tty, env, flags).io).toMatchObject(expected);
  });

  it('escapes DEL and C1 controls that JSON.stringify leaves raw', () => {
    const t = io(false);
    t.io.writeJson({ stage: 'a\u009b2Jb\u007f\u001b[31m' });
    expect(t.stdout()).toBe('{\n  "stage": "a\\u009b2Jb\\u007f\\u001b[31m"\n}\n');
    expect(JSON.parse(t.stdout()).stage).toBe('a\u009b2Jb\u007f\u001b[31m');
  });
});

describe('renderTable', () => {
  const cols = [{ header: 'ID' }, { header: 'NAME', flexible: true }, { header: 'STATUS' }];
  const rows = [['run_1', 'A rather long name that will not fit in a narrow terminal', 'running']];

  it('joins cells with tabs for pipes, whatever the width', () => {
    expect(renderTable(cols, rows, { tty: false, width: 20 })).toEqual([
      'run_1\tA rather long name that will not fit in a narrow terminal\trunning',
    ]);
  });

  it('aligns columns and shortens the flexible one to fit the terminal', () => {
    const lines = renderTable(cols, rows, { tty: true, width: 40 });
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS$/);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(40);
    expect(lines[1]).toContain('…');
    expect(lines[1]).toMatch(/running$/);
    expect(lines[1]!.indexOf('running')).toBe(lines[0]!.indexOf('STATUS'));
  });

  it('sanitises cells', () => {
    expect(renderTable(cols, [['run_1\u001b[2J', 'x\ny', 'ok']], { tty: false, width: 80 })).toEqual([
      'run_1\tx y\tok',
    ]);
  });
});

describe('small readers', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('says times relative to now', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(relativeTime('2026-11-22T11:59:30Z', now)).toBe('30 seconds ago');
    expect(relativeTime('2026-11-22T11:00:00Z', now)).toBe('1 hour ago');
    expect(relativeTime('2026-11-20T12:00:00Z', now)).toBe('2 days ago');
    expect(relativeTime('2026-11-22T12:05:00Z', now)).toBe('in 5 minutes');
    expect(relativeTime(null, now)).toBe('—');
  });
});

describe('narrow terminals', () => {
  it('a table is cut to fit, cell by cell, never wrapped', async () => {
    const { renderTable } = await import('../../src/ui/table.js');
    const rows = [['run_8fJ2kQabcdef', 'awaiting_approval', '07_scoring', 'final', '2026-11-22T10:00:00.000Z']];
    for (const width of [80, 40, 30]) {
      const lines = renderTable(
        [
          { header: 'ID' },
          { header: 'STATUS' },
          { header: 'STAGE', flexible: true },
          { header: 'GATE' },
          { header: 'CREATED', flexible: true },
        ],
        rows,
        { tty: true, width },
      );
      for (const l of lines) expect([...l].length, `width ${width}: ${l}`).toBeLessThanOrEqual(width);
      expect(lines[1]).toContain('run_8fJ2kQabcdef'.slice(0, Math.min(16, width))); // the id keeps its width first
    }
  });

  it('the outcome line of a watch, with the app store URL, is never cut', async () => {
    const { TtyRenderer } = await import('../../src/ui/watch/tty.js');
    const { IO } = await import('../../src/ui/io.js');
    const { PassThrough } = await import('node:stream');
    let out = '';
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 30 });
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    const io = new IO(
      {
        stdin: Object.assign(new PassThrough(), { isTTY: true }),
        stdout,
        stderr: Object.assign(new PassThrough(), { isTTY: true, columns: 30 }),
      },
      { json: false, noInput: false, env: {} },
    );
    const plain = (s: string) => s;
    const r = new TtyRenderer(io, {
      bold: plain,
      dim: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
      status: plain,
      alarm: plain,
      swatch: (_h, l) => l,
    });
    const url = 'https://apps.apple.com/app/id1234567890123';
    r.handle({
      kind: 'event',
      seq: 1,
      event: {
        id: 'e',
        type: 'run.accepted',
        created_at: '2026-11-22T10:00:00.000Z',
        run_id: 'run_1',
        data: { app_id: '1234567890123', app_store_url: url },
      },
    });
    r.finish();
    expect(out).toContain(url);
  });
});

describe('widths in terminal columns', () => {
  it('lines up a table whose cells hold CJK and emoji, which take two columns each', async () => {
    const { renderTable } = await import('../../src/ui/table.js');
    const { displayWidth } = await import('../../src/ui/width.js');
    const lines = renderTable(
      [{ header: 'ID' }, { header: 'NAME' }, { header: 'STATUS' }],
      [
        ['run_1', '日本語アプリ', 'running'],
        ['run_2', 'Plain', 'accepted'],
        ['run_3', 'Run 🏃🏽 club', 'failed'],
      ],
      { tty: true, width: 80 },
    );
    const statusAt = lines.map((l) => displayWidth(l.slice(0, l.search(/running|accepted|failed|STATUS/))));
    expect(new Set(statusAt).size).toBe(1); // every STATUS cell starts in the same column
  });

  it('cuts a wide cell to its column width, never in the middle of a character', async () => {
    const { fitColumns, displayWidth, clipVisible } = await import('../../src/ui/width.js');
    const cut = fitColumns('日本語のアプリ', 7);
    expect(displayWidth(cut)).toBe(7);
    expect(cut).toBe('日本語…');
    expect(fitColumns('ab日本', 4)).toBe('ab… '); // the wide character does not fit beside the mark: a space pads the column
    expect(displayWidth(clipVisible('\u001b[31m日本語\u001b[0m', 5))).toBe(4);
    // An escape that is not a colour ends at its own final byte, not at the next `m` of the text.
    expect(clipVisible('\u001b[2Khello world, and more', 8)).toBe('\u001b[2Khello wo\u001b[0m');
    expect(clipVisible('\u001b]0;title\u0007hello world', 5)).toBe('\u001b]0;title\u0007hello\u001b[0m');
    expect(clipVisible('\u001b[1;31mred\u001b[0m text', 5, '…')).toBe('\u001b[1;31mred\u001b[0m t…\u001b[0m');
  });
});

it('every character measured without the Unicode tables takes the one column string-width gives it', async () => {
  const { default: stringWidth } = await import('string-width');
  const ranges: Array<[number, number]> = [
    [0x20, 0x7e],
    [0xa1, 0xac],
    [0xae, 0x2ff],
    [0x2010, 0x2027],
    [0x2030, 0x205e],
    [0x2190, 0x21ff],
    [0x2500, 0x25fc],
    [0x2713, 0x2718],
  ];
  for (const [from, to] of ranges) {
    for (let cp = from; cp <= to; cp++) {
      const ch = String.fromCodePoint(cp);
      expect(stringWidth(ch), `U+${cp.toString(16)}`).toBe(1);
      expect(displayWidth(ch), `U+${cp.toString(16)}`).toBe(1);
      expect(fitColumns(`a${ch}b`, 2)).toBe(`a…`);
    }
  }
  // Just outside them, or with a mark that combines: the table's answer.
  for (const s of ['\u00ad', '\u25fd', '\u2705', 'e\u0301', '\u2028', '日本'])
    expect(displayWidth(s), JSON.stringify(s)).toBe(stringWidth(s));
});

it('the bundled string-width, its tables made when first called (scripts/bundle-options.mjs), measures as the package does', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const dir = new URL('../../dist/chunks/', import.meta.url);
  const chunk = readdirSync(dir).find(
    (f) => f.endsWith('.js') && readFileSync(new URL(f, dir), 'utf8').includes('function makeTables()'),
  );
  expect(chunk, 'the build makes string-width lazy').toBeDefined();
  const bundled = (await import(new URL(chunk!, dir).href)) as { stringWidth: (s: string) => number };
  const { default: stringWidth } = await import('string-width');
  for (const s of [
    'plain',
    '日本語アプリ',
    'Run 🏃🏽 club',
    'e\u0301',
    '👨‍👩‍👧',
    '\u001b[31mred\u001b[0m',
    '',
    '1\u20e3',
    '한국어',
  ])
    expect(bundled.stringWidth(s), JSON.stringify(s)).toBe(stringWidth(s));
});

it('a fault says "1 time", not "1 times" (orc sandbox fault list and the console share the words)', async () => {
  const { faultEffects } = await import('../../src/contract/sandbox-control.js');
  expect(faultEffects({ route: 'GET /v1/runs', status: 500, times: 1 })).toEqual(['status 500', '1 time']);
  expect(faultEffects({ route: 'GET /v1/runs', latency_ms: 300, times: 3, probability: 0.5 })).toEqual([
    'latency 300 ms',
    '3 times',
    'p 0.5',
  ]);
});
