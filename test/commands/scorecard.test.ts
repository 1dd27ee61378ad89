// What the scorecard and the gate prompt print, at any width: piped, nothing is cut; at a narrow terminal a
// palette's codes move to the next line whole, never split; a gate decided before shows those decisions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateSummary } from '../../src/commands/watch/gate-prompt.js';
import { loadStyle } from '../../src/ui/style.js';
import { IO } from '../../src/ui/io.js';
import { PassThrough } from 'node:stream';
import { runOrc } from '../helpers/run.js';
import { driveToEnd, KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 40 });
});
afterAll(() => sb.close());

describe('orc scorecard, piped', () => {
  it('cuts nothing, whatever the width (DETAIL whole)', async () => {
    const run = await sb.createRun('A meal planner #lowscore');
    await driveToEnd(sb, run.id);
    const card = (await sb.call('GET', `/v1/runs/${run.id}/scorecard`)).body;
    const failing = card.preflight.checks.find((c: { status: string }) => c.status === 'fail');
    expect(failing.detail.length).toBeGreaterThan(20);
    // A detail says what is wrong, never the check's title again.
    for (const c of card.preflight.checks.filter((c: { detail: string | null }) => c.detail))
      expect(c.detail).not.toContain(c.title);
    const r = await runOrc(['scorecard', run.id], { env: { ORC_BASE_URL: sb.url }, columns: 40 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(failing.detail);
    expect(r.stdout).not.toContain('…');
  });
});

describe('orc scorecard, what to change', () => {
  it('shows each failing check with its field, hint and suggestion, and the parts of beauty and harmony', async () => {
    const run = await sb.createRun('A recipe box #lowscore');
    await driveToEnd(sb, run.id);
    const card = (await sb.call('GET', `/v1/runs/${run.id}/scorecard`)).body;
    const r = await runOrc(['scorecard', run.id], { env: { ORC_BASE_URL: sb.url }, columns: 40 });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const failing = card.preflight.checks.filter((c: { status: string }) => c.status === 'fail');
    expect(failing.map((c: { id: string }) => c.id)).toEqual(['name', 'category', 'contrast']);
    for (const c of failing) {
      // Under the check's row: the field it reads, what to change there, and a value that passes.
      const row = lines.findIndex((l) => l.startsWith('✗ fail') && l.includes(c.title));
      expect(row, c.title).toBeGreaterThan(0);
      expect(lines[row + 1]).toMatch(new RegExp(`^\\s+field\\s+${c.field.replace('.', '\\.')}$`));
      expect(lines[row + 2]).toMatch(/^\s+hint\s+/);
      expect(lines[row + 2]).toContain(c.hint);
      expect(lines[row + 3]).toMatch(/^\s+suggested\s+/);
    }
    // The suggested palette compactly, as its codes; a suggested name as a quoted string.
    const contrast = failing.find((c: { id: string }) => c.id === 'contrast');
    expect(r.stdout).toContain(`suggested  ${contrast.suggestion.join(' ')}`);
    expect(r.stdout).toContain(`suggested  ${JSON.stringify(failing[0].suggestion)}`);
    // Passing checks say nothing more.
    const passing = lines.findIndex((l) => l.startsWith('✓ pass'));
    expect(lines[passing + 1]).toMatch(/^✓ pass|^$/);
    // Beauty and harmony: each part's value, weight and detail; the parts below 100 with what raises them.
    for (const of of ['beauty', 'harmony']) {
      const head = lines.indexOf(`${of[0]!.toUpperCase()}${of.slice(1)} ${card.score[of]}`);
      expect(head, of).toBeGreaterThan(0);
      const parts = card.components.filter((c: { of: string }) => c.of === of);
      for (const p of parts) {
        const row = lines.findIndex(
          (l, i) => i > head && new RegExp(`^${p.name}\\s+${p.value}\\s+${p.weight}\\s`).test(l),
        );
        expect(row, p.name).toBeGreaterThan(head);
        expect(lines[row]).toContain(p.detail);
        if (p.value < 100) expect(lines.slice(row + 1, row + 4).join('\n')).toContain(p.hint);
      }
    }
    // The most to gain first: beauty's contrast (17 of 100, weight 30) leads its parts.
    const beauty = lines.indexOf(`Beauty ${card.score.beauty}`);
    expect(lines[beauty + 3]).toMatch(/^contrast\s/);
    expect(r.stdout).not.toContain('…');
  });
});

describe('the brand gate at 60 columns', () => {
  it('puts as many swatches on a line as fit, and never splits a code', async () => {
    const palette = ['#9B173A', '#C53F16', '#3ACBA4', '#48C0E5', '#F6F4F4', '#112233', '#445566'];
    const api = {
      spec: { retrieve: async () => ({ name: 'X', brand: { palette, typeface: 'Nunito', voice: 'calm' } }) },
      gates: { list: async () => [] },
    } as never;
    const out = Object.assign(new PassThrough(), { isTTY: true, columns: 60 });
    const io = new IO({ stdin: new PassThrough(), stdout: out, stderr: out }, { json: false, noInput: false, env: {} });
    const lines = await gateSummary(api, 'run_x', 'brand', await loadStyle(io), { columns: 60 });
    const swatchLines = lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, '')).filter((l) => /#[0-9A-F]{6}/.test(l));
    expect(swatchLines.length).toBeGreaterThan(1);
    for (const l of swatchLines) expect([...l].length).toBeLessThanOrEqual(60);
    expect(swatchLines.join(' ').match(/#[0-9A-F]{6}/g)).toEqual(palette);
  });
});

describe('the gate prompt at a gate decided before', () => {
  it('shows each earlier decision, oldest first, with its time and notes (sanitised), before it asks', async () => {
    const run = await sb.createRun('A bread proofing timer');
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    const notes = ['Too generic', 'Say who it is for\u001b[2J\n(bakers)'];
    for (const n of notes) {
      expect((await sb.call('POST', `/v1/runs/${run.id}/gates/idea:reject`, { notes: n })).status).toBe(200);
      await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    }
    const { createApi } = await import('../../src/api/index.js');
    const api = createApi({ baseUrl: sb.url, apiKey: KEY, userAgent: 'test' });
    const out = Object.assign(new PassThrough(), { isTTY: false });
    const io = new IO({ stdin: new PassThrough(), stdout: out, stderr: out }, { json: false, noInput: false, env: {} });
    const lines = await gateSummary(api, run.id, 'idea', await loadStyle(io));
    const before = lines.slice(lines.findIndex((l) => l.startsWith('  before')));
    expect(before).toEqual([
      expect.stringMatching(/^ {2}before {4}rejected \d\d:\d\d — “Too generic”$/),
      expect.stringMatching(/^ {12}rejected \d\d:\d\d — “Say who it is for.*\(bakers\)”$/),
    ]);
    for (const line of before) expect(line).not.toMatch(/[\u0000-\u001f]/);
    // a gate no one decided yet says nothing of the kind
    const fresh = await sb.createRun('A pasta timer');
    await sb.waitFor(fresh.id, (r) => r.gate_pending === 'idea');
    expect((await gateSummary(api, fresh.id, 'idea', await loadStyle(io))).join('\n')).not.toContain('before');
  });
});
