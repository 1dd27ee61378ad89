// `orc gate approve|reject --set/--unset/--file`: the spec change is sent first and the gate decided only once it
// is taken; a refused change decides nothing. In process, against a sandbox of orc-cli/testing on a manual clock.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { runOrc } from '../helpers/run.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
});
afterAll(() => sb.stop());

const orc = (args: string[], input?: string) =>
  runOrc(args, { env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey }, ...(input === undefined ? {} : { input }) });

/** A new run waiting at its brand gate. */
async function atBrand(): Promise<string> {
  const run = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run, to: 'gate:brand' });
  return run;
}
const gateOf = async (run: string, name: string) => (await sb.client.gates.list(run)).find((g) => g.name === name)!;

describe('orc gate approve|reject with a spec change', () => {
  it('approve --set --unset changes the spec, then approves, the notes saying what changed', async () => {
    const run = await atBrand();
    const r = await orc([
      'gate',
      'approve',
      run,
      'brand',
      '--set',
      'tagline=Run every day',
      '--unset',
      'keywords',
      '--json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.gate).toMatchObject({ name: 'brand', state: 'approved' });
    expect(out.spec_changed.toSorted()).toEqual(['keywords', 'tagline']);
    const spec = await sb.client.spec.retrieve(run);
    expect(spec.tagline).toBe('Run every day');
    expect(spec).not.toHaveProperty('keywords');
    const gate = await gateOf(run, 'brand');
    expect(gate.state).toBe('approved');
    expect(gate.notes?.split(', ').toSorted()).toEqual(['set tagline', 'unset keywords']);
  });

  it('an unknown field is refused with the field meant: exit 2, the spec and the gate as they were', async () => {
    const run = await atBrand();
    const before = await sb.client.spec.retrieve(run);
    const r = await orc(['gate', 'approve', run, 'brand', '--set', 'taglin=Run every day']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('did you mean tagline?');
    expect((await gateOf(run, 'brand')).state).toBe('pending');
    expect(await sb.client.spec.retrieve(run)).toEqual(before);
  });

  it('a value the spec refuses decides nothing: exit 2 naming the field', async () => {
    const run = await atBrand();
    const r = await orc(['gate', 'approve', run, 'brand', '--set', 'bundle_id=not a bundle id']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('bundle_id');
    expect((await gateOf(run, 'brand')).state).toBe('pending');
    expect(await orc(['gate', 'reject', run, 'brand', '--file', '-', '--notes-file', '-'], '{}')).toMatchObject({
      exitCode: 2,
      stderr: expect.stringContaining('cannot both read stdin'),
    });
  });

  it('a change to a gate that is not pending is refused before anything is sent: exit 3', async () => {
    const run = await atBrand();
    const before = await sb.client.spec.retrieve(run);
    const r = await orc(['gate', 'approve', run, 'final', '--set', 'tagline=Too early']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('not pending');
    expect(await sb.client.spec.retrieve(run)).toEqual(before);
    expect((await gateOf(run, 'brand')).state).toBe('pending');
  });

  it('reject --set keeps the notes given, and still needs them', async () => {
    const run = await atBrand();
    const bare = await orc(['gate', 'reject', run, 'brand', '--set', 'brand.voice=warm']);
    expect(bare.exitCode).toBe(2);
    expect((await sb.client.spec.retrieve(run)).brand?.voice).not.toBe('warm');
    const r = await orc(['gate', 'reject', run, 'brand', '--set', 'brand.voice=warm', '--notes', 'Warmer, please']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await sb.client.spec.retrieve(run)).brand?.voice).toBe('warm');
    const gate = await gateOf(run, 'brand');
    expect(gate.history?.at(-1)).toMatchObject({ decision: 'rejected', notes: 'Warmer, please' });
  });

  it('--file - takes the merge patch from stdin; --file <path> from a file', async () => {
    const run = await atBrand();
    const r = await orc(
      ['gate', 'approve', run, 'brand', '--file', '-', '--json'],
      '{"brand":{"typeface":"Fraunces"}}',
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).spec_changed).toEqual(['brand.typeface']);
    expect((await sb.client.spec.retrieve(run)).brand?.typeface).toBe('Fraunces');

    const other = await atBrand();
    const file = join(mkdtempSync(join(tmpdir(), 'orc-patch-')), 'patch.json');
    writeFileSync(file, JSON.stringify({ category: 'Health & Fitness' }));
    const f = await orc(['gate', 'approve', other, 'brand', '--file', file, '--notes', 'Ship it']);
    expect(f.exitCode, f.stderr).toBe(0);
    expect((await sb.client.spec.retrieve(other)).category).toBe('Health & Fitness');
    expect((await gateOf(other, 'brand')).notes).toBe('Ship it');
  });
});
