// The inbox: `orc gate list` with no run lists every run waiting at a gate, oldest wait first, with its name,
// gate, how long it has waited and (final) the score and pre-flight. In process, against a sandbox of
// orc-cli/testing on a manual clock: nothing moves but what the test advances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { runOrc } from '../helpers/run.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
});
afterAll(() => sb.stop());

/** orc with the sandbox's time as its own, so how long a gate waited is known to the second. */
const orc = async (args: string[], tty = false) => {
  const at = Date.parse((await sb.clock()).now);
  return runOrc(args, {
    env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey },
    clock: { now: () => at, timer: systemClock.timer },
    ...(tty ? { tty: { stdout: true } } : {}),
    columns: 160,
  });
};
const park = async (pitch: string, gate: string) => {
  const run = (
    await sb.client.runs.create({ mode: 'idea', idea: { pitch, audience: 'runners', monetization: 'free' } })
  ).id;
  await sb.advance({ run, to: `gate:${gate}` });
  return run;
};

interface Line {
  run_id: string;
  name: string | null;
  gate: string;
  waiting_since: string;
  waited_s: number;
  score?: number;
  preflight_passed?: boolean;
}

describe('orc gate list with no run: the inbox', () => {
  it('says so when no gate waits (exit 0, [] under --json)', async () => {
    const text = await orc(['gate', 'list']);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toBe('');
    expect(text.stderr).toContain('No gate waits for a decision.');
    const json = await orc(['gate', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it('lists every run at a gate, oldest wait first, with name, gate, wait, and score and pre-flight at final', async () => {
    const first = await park('A tide table for sailors', 'final');
    await sb.advance('10m');
    const second = await park('A habit tracker for runners', 'idea');
    await sb.advance('5m');
    const third = await park('A budget app for students', 'brand');
    const ended = await park('A recipe box', 'idea');
    await sb.client.runs.cancel(ended);
    await sb.advance('1m');
    const now = Date.parse((await sb.clock()).now);

    const r = await orc(['gate', 'list', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = JSON.parse(r.stdout) as Line[];
    expect(lines.map((l) => [l.run_id, l.gate])).toEqual([
      [first, 'final'],
      [second, 'idea'],
      [third, 'brand'],
    ]);
    for (const l of lines) {
      const run = await sb.client.runs.retrieve(l.run_id);
      expect(l.waiting_since).toBe(run.updated_at);
      expect(l.waited_s).toBe((now - Date.parse(l.waiting_since)) / 1000);
      const spec = await sb.client.spec.retrieve(l.run_id);
      expect(l.name).toBe(spec.name);
    }
    expect(lines[1]!.waited_s - lines[2]!.waited_s).toBe(300);
    const card = await sb.client.runs.scorecard(first);
    expect(lines[0]).toMatchObject({ score: card.score.score, preflight_passed: card.preflight.passed });
    expect(Object.keys(lines[1]!).sort()).toEqual(['gate', 'name', 'run_id', 'waited_s', 'waiting_since']);

    const jq = await orc(['gate', 'list', '--json', '--jq', '.[].run_id']);
    expect(jq.stdout.split('\n')).toEqual([first, second, third]);
  });

  it('shows a table at a terminal: RUN, NAME, GATE, WAITING, SCORE, PRE-FLIGHT; no prompt without one', async () => {
    const r = await orc(['gate', 'list'], true);
    expect(r.exitCode, r.stderr).toBe(0);
    const [header, ...rows] = r.stdout.split('\n');
    expect(header!.split(/\s+/)).toEqual(['RUN', 'NAME', 'GATE', 'WAITING', 'SCORE', 'PRE-FLIGHT']);
    const lines = JSON.parse((await orc(['gate', 'list', '--json'])).stdout) as Line[];
    expect(rows).toHaveLength(lines.length);
    const final = rows[0]!;
    expect(final).toContain(lines[0]!.run_id);
    expect(final).toContain(lines[0]!.name!);
    expect(final).toMatch(new RegExp(`\\bfinal\\b.*\\b${lines[0]!.score}\\b.*\\b(passed|failed)\\b`));
    expect(final).toContain(lines[0]!.preflight_passed ? 'passed' : 'failed');
    expect(rows[1]).toMatch(/\bidea\s+6m00s\s+—\s+—$/); // parked, then 5 and 1 minutes
    expect(r.stderr).not.toContain('Decide which gate?');
  });
});

describe('orc help', () => {
  it("documents the inbox's shape", async () => {
    const r = await runOrc(['help', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      '{ run_id, name, gate, waiting_since, waited_s, score?, preflight_passed? }',
    );
  });

  it('orc help watching tells of the inbox', async () => {
    const r = await runOrc(['help', 'watching']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('`orc gate list` with no run lists every run waiting at a gate');
  });
});
