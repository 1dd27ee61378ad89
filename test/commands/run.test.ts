// `orc run create|get|list|cancel`, built, against a sandbox on port 0, with a fresh config folder.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Run } from '../../src/contract/schemas.js';
import { runNameOf } from '../../src/contract/run-name.js';
import { startSandbox, type TestSandbox as SdkSandbox } from '../../src/sdk/testing.js';
import { runOrc as orc } from '../helpers/run.js';
import { driveToEnd, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 30_000 });
});
afterAll(() => sb.close());

/** orc aimed at the test sandbox through ORC_BASE_URL, as a CI job would be. */
const run = (
  args: string[],
  o: { input?: string; env?: Record<string, string | undefined>; configDir?: string } = {},
) => orc(args, { ...o, env: { ORC_BASE_URL: sb.url, ...o.env } });
const countRuns = async () => (await sb.call('GET', '/v1/runs?limit=100')).body.data.length as number;
const idea = ['--pitch', 'A habit tracker for runners', '--audience', 'runners', '--monetization', 'freemium'];

describe('orc run create', () => {
  it('creates an idea run and shows it; --json prints exactly the run', async () => {
    const human = await run(['run', 'create', ...idea]);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^id\s+run_\S+$/m);
    expect(human.stdout).toMatch(/^status\s+running$/m);
    expect(human.stderr).toContain('orc watch run_');
    const json = await run(['run', 'create', ...idea, '--json']);
    expect(json.exitCode).toBe(0);
    const created = Run.parse(JSON.parse(json.stdout));
    expect(created).toMatchObject({ mode: 'idea', status: 'running', stage: '01_intake' });
    expect(json.stderr).toBe('');
    expect((await sb.call('GET', `/v1/runs/${created.id}`)).status).toBe(200);
  });

  it('without a terminal, names every missing flag with exit 2, and sends nothing', async () => {
    const before = await countRuns();
    const r = await run(['run', 'create', '--pitch', 'Only a pitch']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--audience');
    expect(r.stderr).toContain('--monetization');
    expect(r.stdout).toBe('');
    const bad = await run(['run', 'create', '--pitch', 'p', '--audience', 'a', '--monetization', 'gold']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--monetization must be one of free, paid, freemium');
    expect(await countRuns()).toBe(before);
  });

  it('creates ship runs from a repository URL, a spec file, and a spec on stdin', async () => {
    const url = await run(['run', 'create', '--source', 'https://github.com/acme/trail-log.git', '--json']);
    expect(url.exitCode, url.stderr).toBe(0);
    expect(JSON.parse(url.stdout).mode).toBe('ship');
    const file = join(mkdtempSync(join(tmpdir(), 'orc-spec-')), 'spec.json');
    writeFileSync(file, JSON.stringify({ name: 'Trail Log', platforms: ['ios'] }));
    const fromFile = await run(['run', 'create', '--source', file, '--json']);
    expect(fromFile.exitCode, fromFile.stderr).toBe(0);
    const spec = await sb.call('GET', `/v1/runs/${JSON.parse(fromFile.stdout).id}/spec`);
    expect(spec.body.name).toBe('Trail Log');
    const stdin = await run(['run', 'create', '--source', '-', '--json'], {
      input: JSON.stringify({ name: 'Piped App' }),
    });
    expect(stdin.exitCode, stdin.stderr).toBe(0);
    expect((await sb.call('GET', `/v1/runs/${JSON.parse(stdin.stdout).id}/spec`)).body.name).toBe('Piped App');
  });

  it.each([
    [['--source', 'ftp://example.com/x'], '--source'],
    [['--source', '/no/such/spec.json'], '--source'],
    [['--source', '-'], '--source'],
    [['--mode', 'idea', '--source', 'https://github.com/a/b'], '--source'],
    [['--mode', 'ship', '--pitch', 'p', '--source', 'https://github.com/a/b'], '--pitch'],
    [['--mode', 'draft'], '--mode'],
  ])('refuses %j with exit 2 naming %s', async (args, flag) => {
    const r = await run(['run', 'create', ...args], { input: 'not json' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(flag);
  });

  it('with --idempotency-key, the same create twice is one run', async () => {
    const before = await countRuns();
    const a = await run(['run', 'create', ...idea, '--idempotency-key', 'ci-build-4711', '--json']);
    const b = await run(['run', 'create', ...idea, '--idempotency-key', 'ci-build-4711', '--json']);
    expect(JSON.parse(a.stdout).id).toBe(JSON.parse(b.stdout).id);
    expect(await countRuns()).toBe(before + 1);
    const other = await run([
      'run',
      'create',
      '--pitch',
      'Something else',
      '--audience',
      'x',
      '--monetization',
      'free',
      '--idempotency-key',
      'ci-build-4711',
    ]);
    expect(other.exitCode).toBe(3);
    expect(other.stderr).toContain('idempotency_key_reused');
  });
});

describe('orc run get, list, cancel', () => {
  it('gets a run; an unknown one is exit 3 with the code and request id, and nothing on stdout', async () => {
    const created = JSON.parse((await run(['run', 'create', ...idea, '--json'])).stdout);
    const got = await run(['run', 'get', created.id, '--json']);
    expect(JSON.parse(got.stdout)).toEqual(created);
    const missing = await run(['run', 'get', 'run_does_not_exist']);
    expect(missing.exitCode).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('run_not_found');
    expect(missing.stderr).toMatch(/request id req_\w+/);
    const noArg = await run(['run', 'get']);
    expect(noArg.exitCode).toBe(2);
  });

  it('lists newest first: --limit, --all, --status; tab-separated when piped', async () => {
    const local = await startTestSandbox({ stageMs: 30_000 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await local.createRun(`Run ${i}`)).id);
      await local.call('POST', `/v1/runs/${ids[3]}/cancel`);
      const env = { ORC_BASE_URL: local.url };
      const two = await orc(['run', 'list', '--limit', '2', '--json'], { env });
      expect(JSON.parse(two.stdout).map((r: any) => r.id)).toEqual([ids[24], ids[23]]);
      const all = await orc(['run', 'list', '--all', '--json'], { env });
      expect(JSON.parse(all.stdout).map((r: any) => r.id)).toEqual([...ids].reverse());
      // Written a page at a time as it comes (flat memory over any number of runs), yet the same text as
      // one JSON document printed whole; tab-separated lines likewise.
      expect(all.stdout.trimEnd()).toBe(JSON.stringify(JSON.parse(all.stdout), null, 2));
      expect((await orc(['run', 'list', '--all'], { env })).stdout.trimEnd().split('\n')).toHaveLength(25);
      expect((await orc(['run', 'list', '--status', 'failed', '--json'], { env })).stdout.trim()).toBe('[]');
      const deflt = await orc(['run', 'list', '--json'], { env });
      expect(JSON.parse(deflt.stdout)).toHaveLength(20);
      const canceled = await orc(['run', 'list', '--status', 'canceled', '--json'], { env });
      expect(JSON.parse(canceled.stdout).map((r: any) => r.id)).toEqual([ids[3]]);
      const piped = await orc(['run', 'list', '--limit', '3'], { env });
      const lines = piped.stdout.split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]!.split('\t')).toEqual([
        ids[24],
        'running',
        '01_intake',
        '—',
        expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        runNameOf((await local.call('GET', `/v1/runs/${ids[24]}/spec`)).body),
      ]);
      const badStatus = await orc(['run', 'list', '--status', 'paused'], { env });
      expect(badStatus.exitCode).toBe(2);
      expect(badStatus.stderr).toContain('--status');
      const badLimit = await orc(['run', 'list', '--limit', '0'], { env });
      expect(badLimit.exitCode).toBe(2);
      expect(badLimit.stderr).toContain('--limit');
    } finally {
      await local.close();
    }
  });

  it('cancels a test run without asking; an ended run is exit 3 run_not_active', async () => {
    const created = await sb.createRun('To cancel');
    const r = await run(['run', 'cancel', created.id, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('canceled');
    const fast = await startTestSandbox({ stageMs: 20 });
    try {
      const done = await driveToEnd(fast, (await fast.createRun('Done #fail')).id);
      const refused = await orc(['run', 'cancel', done.id], { env: { ORC_BASE_URL: fast.url } });
      expect(refused.exitCode).toBe(3);
      expect(refused.stderr).toContain('run_not_active');
    } finally {
      await fast.close();
    }
  });
});

// Issue 37: a run shown to a person has its name (the App Spec's, src/contract/run-name.ts) beside its id;
// --json keeps the service's shapes. On a manual clock: the runs stand still between the reads compared.
describe('runs by name', () => {
  let manual: SdkSandbox;
  beforeAll(async () => {
    manual = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  });
  afterAll(() => manual.stop());
  const env = () => ({ ORC_BASE_URL: manual.url, ORC_API_KEY: manual.apiKey });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${manual.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${manual.apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return res.json() as Promise<any>;
  };
  const IDEA = { pitch: 'A tide table for sailors', audience: 'sailors', monetization: 'free' } as const;

  it('run list has a NAME column after ID (piped too); --json is the service list as it is', async () => {
    const first = (await manual.client.runs.create({ mode: 'idea', idea: IDEA })).id;
    const renamed = (await manual.client.runs.create({ mode: 'idea', idea: IDEA })).id;
    await api('PATCH', `/v1/runs/${renamed}/spec`, { name: 'Harbour\tHours' });
    const piped = await orc(['run', 'list'], { env: env() });
    expect(piped.exitCode, piped.stderr).toBe(0);
    const rows = piped.stdout.split('\n').map((l) => l.split('\t'));
    expect(rows.map((r) => r[0])).toEqual([renamed, first]);
    expect(rows[0]![5]).toBe('Harbour Hours');
    expect(rows[1]![5]).toBe(runNameOf(await api('GET', `/v1/runs/${first}/spec`)));
    expect(rows[1]![5]).toMatch(/\w/);
    expect(rows[0]!.slice(1, 3)).toEqual(['running', '01_intake']); // the fields scripts cut before names came
    const json = await orc(['run', 'list', '--json'], { env: env() });
    expect(JSON.parse(json.stdout)).toEqual((await api('GET', '/v1/runs?limit=20')).data);
  });

  it("an ended run's name is read once and kept for the target (its spec is locked); a moving run's each time", async () => {
    const ended = (await manual.client.runs.create({ mode: 'idea', idea: IDEA })).id;
    await manual.advance({ run: ended, to: 'end' });
    const moving = (await manual.client.runs.create({ mode: 'idea', idea: IDEA })).id;
    const configDir = mkdtempSync(join(tmpdir(), 'orc-names-'));
    const specReads = async (after: number) => {
      const log = await api('GET', `/_sandbox/logs?after=${after}&limit=1000`);
      const read = (id: string) =>
        log.data.filter((e: any) => e.type === 'request' && e.method === 'GET' && e.path === `/v1/runs/${id}/spec`)
          .length;
      return { ended: read(ended), moving: read(moving), last: log.last as number };
    };
    const start = (await specReads(0)).last;
    const list = () => orc(['run', 'list', '--limit', '100'], { env: { ...env(), ORC_CONFIG_DIR: configDir } });
    const first = await list();
    expect(first.exitCode, first.stderr).toBe(0);
    const once = await specReads(start);
    expect([once.ended, once.moving]).toEqual([1, 1]);
    const second = await list();
    expect(second.stdout).toBe(first.stdout); // the same names
    const again = await specReads(once.last);
    expect([again.ended, again.moving]).toEqual([0, 1]);
    // Another target's memory is its own.
    const other = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
    try {
      const r = await orc(['run', 'list'], {
        env: { ORC_BASE_URL: other.url, ORC_API_KEY: other.apiKey, ORC_CONFIG_DIR: configDir },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).not.toContain(ended);
    } finally {
      await other.stop();
    }
  });

  it('run get shows the name under the id; --json is the run as it is', async () => {
    const id = (await manual.client.runs.create({ mode: 'idea', idea: IDEA })).id;
    await api('PATCH', `/v1/runs/${id}/spec`, { name: 'Tide Table' });
    const shown = await orc(['run', 'get', id], { env: env() });
    expect(shown.stdout.split('\n').slice(0, 2)).toEqual([`id       ${id}`, 'name     Tide Table']);
    const json = await orc(['run', 'get', id, '--json'], { env: env() });
    expect(JSON.parse(json.stdout)).toEqual(await api('GET', `/v1/runs/${id}`));
  });
});
