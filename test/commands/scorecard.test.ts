// What the scorecard and the brand gate print, at any width: piped, nothing is cut; at a narrow terminal a
// palette's codes move to the next line whole, never split.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateSummary } from '../../src/commands/watch/gate-prompt.js';
import { loadStyle } from '../../src/ui/style.js';
import { IO } from '../../src/ui/io.js';
import { PassThrough } from 'node:stream';
import { runOrc } from '../helpers/run.js';
import { driveToEnd, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

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

describe('the brand gate at 60 columns', () => {
  it('puts as many swatches on a line as fit, and never splits a code', async () => {
    const palette = ['#9B173A', '#C53F16', '#3ACBA4', '#48C0E5', '#F6F4F4', '#112233', '#445566'];
    const api = {
      spec: { retrieve: async () => ({ name: 'X', brand: { palette, typeface: 'Nunito', voice: 'calm' } }) },
    } as never;
    const out = Object.assign(new PassThrough(), { isTTY: true, columns: 60 });
    const io = new IO({ stdin: new PassThrough(), stdout: out, stderr: out }, { json: false, noInput: false, env: {} });
    const lines = await gateSummary(api, 'run_x', 'brand', await loadStyle(io), 60);
    const swatchLines = lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, '')).filter((l) => /#[0-9A-F]{6}/.test(l));
    expect(swatchLines.length).toBeGreaterThan(1);
    for (const l of swatchLines) expect([...l].length).toBeLessThanOrEqual(60);
    expect(swatchLines.join(' ').match(/#[0-9A-F]{6}/g)).toEqual(palette);
  });
});
