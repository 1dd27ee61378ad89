// The final gate's question at a terminal, in process (--accessible: numbered choices answered by number, so a
// test can answer by writing lines): the failing checks with their field and hint, an edit at each field, the
// suggested values applied, and the rework that follows a rejection, until the run is accepted.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOrc } from '../../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { until } from '../../helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 40 });
});
afterAll(() => sb.close());

const FAKE_EDITOR = resolve(import.meta.dirname, '../../helpers/fake-editor.mjs');
const count = (text: string, what: string) => text.split(what).length - 1;

/** The number the last menu gives the choice that starts with `name`. */
function numberOf(stderr: string, name: string): string {
  const all = [...stderr.matchAll(/^ {2}(\d+)\. (.*)$/gm)].filter((m) => m[2]!.startsWith(name));
  expect(all.length, `a choice "${name}"`).toBeGreaterThan(0);
  return all.at(-1)![1]!;
}

describe('the final gate of a #lowscore run', () => {
  it('shows the failing checks with field and hint; an edit at a field and the suggested values lead to accepted', async () => {
    const run = await sb.createRun('A tide clock #lowscore');
    for (const gate of ['idea', 'brand']) {
      await sb.waitFor(run.id, (r) => r.gate_pending === gate);
      await sb.call('POST', `/v1/runs/${run.id}/gates/${gate}:approve`);
    }
    await sb.waitFor(run.id, (r) => r.gate_pending === 'final');
    const card = (await sb.call('GET', `/v1/runs/${run.id}/scorecard`)).body;
    const contrast = card.preflight.checks.find((c: { id: string }) => c.id === 'contrast');
    const dir = mkdtempSync(join(tmpdir(), 'orc-fake-editor-'));
    const steps = [{ replace: ['^  palette:\\n    - .*$', '  palette:\n    - "#1D2B3A"'] }];
    const stdin = new PassThrough();
    const term = runOrc(['watch', run.id, '--no-bell'], {
      tty: { stdin: true, stdout: true, stderr: true },
      columns: 200,
      input: stdin,
      env: {
        ORC_BASE_URL: sb.url,
        ORC_ACCESSIBLE: '1',
        EDITOR: `node ${FAKE_EDITOR}`,
        VISUAL: '',
        FAKE_EDITOR_DIR: dir,
        FAKE_EDITOR_STEPS: JSON.stringify(steps),
      },
    });
    // What the terminal shows, without its colours.
    const r = { stderr: () => term.stderr().replace(/\u001b\[[0-9;]*m/g, '') };
    const asked = (n: number) => until(() => count(r.stderr(), 'Type a number') >= n, `question ${n}`);
    const said = (what: string, n = 1) => until(() => count(r.stderr(), what) >= n, what);
    const answer = (line: string) => stdin.write(`${line}\n`);

    // The question: each failing check with its field and hint, and an edit at each of those fields.
    await asked(1);
    const first = r.stderr();
    expect(first).toMatch(/field\s+brand\.palette/);
    expect(first).toContain(contrast.hint);
    for (const field of ['name', 'category', 'brand.palette'])
      expect(first).toContain(`Edit the spec at ${field}, then decide`);
    expect(first).toContain('Apply the suggested values (name, category, brand.palette), then decide');

    // Edit at brand.palette: the editor opens marked there; the diff is asked, then the decision again, with
    // the cursor on Reject (the scorecard shown is of the spec before).
    answer(numberOf(first, 'Edit the spec at brand.palette'));
    await said('Send this change to run');
    answer('y');
    await said('✓ spec updated: brand.palette');
    expect(readFileSync(join(dir, 'seen-1'), 'utf8')).toContain(`  # ↓ brand.palette: ${contrast.hint}`);
    expect((await sb.call('GET', `/v1/runs/${run.id}/spec`)).body.brand.palette[0]).toBe('#1D2B3A');
    await asked(2);
    expect(r.stderr()).toMatch(new RegExp(`or Enter for ${numberOf(r.stderr(), 'Reject, with notes written here')}`));
    answer('');
    await said('Notes for the rejection');
    answer('Darker text colour');
    await said('rejected gate final');

    // The rework: the contrast now passes; the suggested values fix the rest.
    await asked(3);
    const second = r.stderr().slice(r.stderr().lastIndexOf('awaits your decision'));
    expect(second).not.toMatch(/field\s+brand\.palette/);
    expect(second).toContain('Apply the suggested values (name, category), then decide');
    answer(numberOf(second, 'Apply the suggested values'));
    await said('Send this change to run', 2);
    expect(r.stderr()).toMatch(/^\+ category: Utilities$/m);
    answer('y');
    await said('✓ spec updated: name, category');
    await asked(4);
    answer('');
    await said('Notes for the rejection', 2);
    answer('Shorter name, a real category');
    await said('rejected gate final', 2);

    // The pre-flight passes; the score does not yet: the question explains it by its parts and offers what
    // they suggest.
    await asked(5);
    const third = r.stderr().slice(r.stderr().lastIndexOf('awaits your decision'));
    expect(third).toContain('Pre-flight passed');
    expect(third).toMatch(/^ {2}Harmony \d+$/m);
    expect(third).toMatch(/^ {2}features\s+\d+\s+\d+\s/m);
    expect(third).toMatch(/Apply the suggested values \(.*features.*\), then decide/);
    answer(numberOf(third, 'Apply the suggested values'));
    await said('Send this change to run', 3);
    answer('y');
    await said('✓ spec updated', 3);
    await asked(6);
    answer('');
    await said('Notes for the rejection', 3);
    answer('Fewer features, every screen with a purpose');
    await said('rejected gate final', 3);

    // Passing now: Approve is the first choice, and the run is accepted.
    await asked(7);
    const last = r.stderr().slice(r.stderr().lastIndexOf('awaits your decision'));
    expect(last).not.toContain('Careful:');
    expect(last).toMatch(/^ {2}1\. Approve$/m);
    answer('1');
    const end = await term;
    expect(end.exitCode, end.stderr.slice(-2000)).toBe(0);
    expect((await sb.call('GET', `/v1/runs/${run.id}`)).body.status).toBe('accepted');
  }, 40_000);
});
