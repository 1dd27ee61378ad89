// `orc run retry <run>`: a new ship-mode run from the old run's App Spec, changed as asked; a run without one,
// or a change the spec refuses, creates nothing. In process, against a sandbox of orc-cli/testing on a manual clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { startFaultProxy, type Fault } from '../helpers/fault-proxy.js';
import { runOrc } from '../helpers/run.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;

const NOT_FOUND = JSON.stringify({ error: { type: 'not_found_error', code: 'not_found', message: 'no spec' } });

let sb: TestSandbox;
let ended: string;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  ended = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run: ended, to: 'end' });
});
afterAll(() => sb.stop());

const orc = (args: string[]) => runOrc(args, { env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey } });
async function runCount(): Promise<number> {
  let n = 0;
  for await (const _ of sb.client.runs.list()) n++;
  return n;
}

describe('orc run retry', () => {
  it('starts a ship-mode run from the old App Spec as changed, prints its id and says where it came from', async () => {
    const old = await sb.client.spec.retrieve(ended);
    const r = await orc(['run', 'retry', ended, '--set', 'tagline=Run every day', '--unset', 'keywords']);
    expect(r.exitCode, r.stderr).toBe(0);
    const id = r.stdout;
    expect(id).toMatch(/^run_/);
    expect(id).not.toBe(ended);
    expect(r.stderr).toContain(`from the App Spec of ${ended}`);
    expect((await sb.client.runs.retrieve(id)).mode).toBe('ship');
    const spec = await sb.client.spec.retrieve(id);
    expect(spec).toMatchObject({ name: old.name, tagline: 'Run every day', description: old.description });
    expect(spec).not.toHaveProperty('keywords');
  });

  it('--json prints the new run with retry_of', async () => {
    const r = await orc(['run', 'retry', ended, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ mode: 'ship', retry_of: ended });
    expect(out.id).not.toBe(ended);
  });

  it('the same retry twice makes one run (its key: the run and the spec sent); another change, or --idempotency-key, another', async () => {
    const before = await runCount();
    const first = await orc(['run', 'retry', ended, '--set', 'tagline=Twice the same']);
    const again = await orc(['run', 'retry', ended, '--set', 'tagline=Twice the same', '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: first.stdout, retry_of: ended });
    expect(again.stderr).toContain(`${first.stdout} was already made from the App Spec of ${ended}`);
    expect(await runCount()).toBe(before + 1);
    const other = await orc(['run', 'retry', ended, '--set', 'tagline=Another']);
    expect(other.stdout).not.toBe(first.stdout);
    const own = await orc(['run', 'retry', ended, '--set', 'tagline=Twice the same', '--idempotency-key', 'mine-1']);
    expect(own.stdout).not.toBe(first.stdout);
    expect(await runCount()).toBe(before + 3);
  });

  // The sandbox makes a spec with every run; a service may not have one yet: its answer, put between orc and the
  // sandbox, is a 404 for the spec, the run itself found.
  it('a run with no App Spec yet is exit 3, saying so, and nothing is created', async () => {
    const proxy = await startFaultProxy(sb.url);
    try {
      const fault: Fault = {
        kind: 'answer',
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: NOT_FOUND,
      };
      proxy.plan = (req) => (req.method === 'GET' && req.url.endsWith('/spec') ? fault : { kind: 'pass' });
      const r = await runOrc(['run', 'retry', ended], { env: { ORC_BASE_URL: proxy.url, ORC_API_KEY: sb.apiKey } });
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain(`run ${ended} has no App Spec yet`);
      expect(proxy.seen.filter((q) => q.method === 'POST')).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('an unknown field gets the field meant (exit 2), and nothing is created', async () => {
    const before = await runCount();
    const r = await orc(['run', 'retry', ended, '--set', 'taglin=x']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('did you mean tagline?');
    expect(await runCount()).toBe(before);
  });
});
