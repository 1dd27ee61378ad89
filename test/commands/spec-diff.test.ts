// `orc spec diff`: two runs' App Specs, or a run's and a file's, compared by dotted path for people and as a JSON
// Merge Patch under --json. In process, against a sandbox of orc-cli/testing on a manual clock.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { applyMergePatch } from '../../src/lib/merge-patch.js';
import { runOrc, type InProcessOptions } from '../helpers/run.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;

let sb: TestSandbox;
let first: string;
let second: string;
const dir = mkdtempSync(join(tmpdir(), 'orc-spec-diff-'));
const orc = (args: string[], o: InProcessOptions = {}) =>
  runOrc(args, { ...o, env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey, ...o.env } });
const specOf = async (run: string) => (await sb.client.spec.retrieve(run)) as Record<string, unknown>;

beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  // The same idea gives the same spec; the second run's is then edited at its idea gate, where specs may change.
  first = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  second = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run: first, to: 'gate:idea' });
  await sb.advance({ run: second, to: 'gate:idea' });
  const edit = await orc([
    'spec',
    'edit',
    second,
    '--set',
    'name=Stride',
    '--set',
    'brand.voice=calm',
    '--set',
    'features=["Dark mode"]',
    '--unset',
    'tagline',
  ]);
  expect(edit.exitCode, edit.stderr).toBe(0);
});
afterAll(() => sb.stop());

describe('orc spec diff', () => {
  it('shows each change by dotted path: removed, changed, added, values as JSON; no colour when piped', async () => {
    const before = await specOf(first);
    const r = await orc(['spec', 'diff', first, second]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').sort()).toEqual(
      [
        `- tagline: ${JSON.stringify(before.tagline)}`,
        `~ name: ${JSON.stringify(before.name)} → "Stride"`,
        `~ features: ${JSON.stringify(before.features)} → ["Dark mode"]`,
        '+ brand: {"voice":"calm"}',
      ].sort(),
    );
    expect(r.stdout).not.toContain('\u001b');
  });

  it('colours the lines at a terminal (added green, removed red), and not with NO_COLOR', async () => {
    const tty = { stdout: true, stderr: true };
    const r = await orc(['spec', 'diff', first, second], { tty });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('\u001b[32m+ brand: {"voice":"calm"}\u001b[39m');
    expect(r.stdout).toMatch(/\u001b\[31m- tagline: .*\u001b\[39m/);
    const plain = await orc(['spec', 'diff', first, second], { tty, env: { NO_COLOR: '1' } });
    expect(plain.stdout).not.toContain('\u001b');
    expect(plain.stdout).toContain('+ brand: {"voice":"calm"}');
  });

  it('--json prints the JSON Merge Patch that turns the first spec into the second', async () => {
    const r = await orc(['spec', 'diff', first, second, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const patch = JSON.parse(r.stdout);
    expect(patch).toEqual({
      tagline: null,
      name: 'Stride',
      features: ['Dark mode'],
      brand: { voice: 'calm' },
    });
    expect(applyMergePatch(await specOf(first), patch)).toEqual(await specOf(second));
  });

  it('compares a run with a JSON file, or with stdin given as -', async () => {
    const file = join(dir, 'spec.json');
    writeFileSync(file, JSON.stringify({ ...(await specOf(first)), category: 'Health & Fitness' }));
    const r = await orc(['spec', 'diff', first, file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('~ category: "Education" → "Health & Fitness"');
    const piped = await orc(['spec', 'diff', second, '-', '--json'], { input: JSON.stringify(await specOf(first)) });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(applyMergePatch(await specOf(second), JSON.parse(piped.stdout))).toEqual(await specOf(first));
  });

  it("sanitises a file's text before a terminal sees it: no C1 control or bidi override reaches it", async () => {
    const file = join(dir, 'hostile.json');
    writeFileSync(file, JSON.stringify({ ...(await specOf(first)), tagline: 'safe\u009b2J\u202eevil' }));
    const r = await orc(['spec', 'diff', first, file], { tty: { stdout: true, stderr: true } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u009b\u202e]/);
    expect(r.stdout).toContain('→ "safeevil"');
  });

  it('identical specs: nothing on stdout, "no difference" on stderr, exit 0 ({} under --json)', async () => {
    const file = join(dir, 'same.json');
    writeFileSync(file, JSON.stringify(await specOf(first)));
    const r = await orc(['spec', 'diff', first, file]);
    expect(r).toMatchObject({ exitCode: 0, stdout: '' });
    expect(r.stderr).toContain('no difference');
    const json = await orc(['spec', 'diff', second, second, '--json']);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({});
  });

  it('a file that is not JSON, or not an object, is exit 2 naming it, before anything is asked', async () => {
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'name: Stride\n');
    const list = join(dir, 'list.json');
    writeFileSync(list, '["name"]');
    for (const [file, says] of [
      [notJson, 'not valid JSON'],
      [list, 'an App Spec must be an object (JSON or YAML)'],
      [join(dir, 'missing.json'), 'no such file'],
    ] as const) {
      const r = await orc(['spec', 'diff', 'run_doesnotexist', file]);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${file}: ${says}`);
    }
  });

  it('a run that does not exist: exit as the service answer maps (404: refused, 3)', async () => {
    const r = await orc(['spec', 'diff', first, 'run_doesnotexist']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('run_doesnotexist');
  });
});
