// Memory and disk agree, always: a store that fails on demand at every write the service makes, and
// after each failure nothing of the change is anywhere (lists, gates, spec, events, the pipeline, a restart).
import { mkdtempSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/clock.js';
import { KEY, readSse, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { runOrc } from '../helpers/run.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox | null = null;
afterEach(async () => {
  await sb?.close();
  sb = null;
});

const idea = { mode: 'idea', idea: { pitch: 'A consistent app', audience: 'testers', monetization: 'free' } };
const WRITES = ['putRun', 'putEvent', 'putIdem', 'commit'];

async function fresh(stageMs = 30, clock?: FakeClock): Promise<TestSandbox> {
  sb = await startTestSandbox({
    stageMs,
    dataPath: join(mkdtempSync(join(tmpdir(), 'orc-consistency-')), 'sandbox.db'),
    ...(clock ? { clock } : {}),
  });
  return sb;
}
const failing = (s: TestSandbox, op: string | null) => (s.store.failWrite = op ? (o) => o === op : null);

describe('a write that fails leaves no trace', () => {
  it.each(WRITES)('creating a run, when %s fails: 500, and the run is nowhere', async (op) => {
    const s = await fresh(60_000);
    failing(s, op);
    const r = await s.call('POST', '/v1/runs', idea, { 'idempotency-key': `k-${op}` });
    failing(s, null);
    expect(r.status).toBe(500);
    expect((await s.call('GET', '/v1/runs')).body.data).toEqual([]);
    expect(s.store.snapshot().events).toEqual({});
    expect(s.store.getIdempotency(`${KEY}\nk-${op}`)).toBeUndefined();
    // The same key works afterwards: nothing of the failed attempt was kept.
    const again = await s.call('POST', '/v1/runs', idea, { 'idempotency-key': `k-${op}` });
    expect(again.status).toBe(201);
  });

  it.each(['putRun', 'putEvent', 'commit'])(
    'deciding a gate, when %s fails: the gate stays pending, the run waits, no event',
    async (op) => {
      const s = await fresh();
      const run = await s.waitFor((await s.createRun()).id, (r) => r.gate_pending === 'idea');
      const eventsBefore = s.store.eventsOf(run.id).length;
      failing(s, op);
      const r = await s.call('POST', `/v1/runs/${run.id}/gates/idea:approve`);
      failing(s, null);
      expect(r.status).toBe(500);
      expect((await s.call('GET', `/v1/runs/${run.id}`)).body).toMatchObject({
        status: 'awaiting_approval',
        gate_pending: 'idea',
      });
      expect((await s.call('GET', `/v1/runs/${run.id}/gates`)).body.data[0]).toMatchObject({
        name: 'idea',
        state: 'pending',
      });
      expect(s.store.eventsOf(run.id).length).toBe(eventsBefore);
      expect((await s.call('POST', `/v1/runs/${run.id}/gates/idea:approve`)).status).toBe(200);
    },
  );

  it.each(['putRun', 'putEvent', 'commit'])('canceling, when %s fails: the run goes on', async (op) => {
    const s = await fresh(60_000);
    const run = await s.createRun();
    failing(s, op);
    expect((await s.call('POST', `/v1/runs/${run.id}/cancel`)).status).toBe(500);
    failing(s, null);
    expect((await s.call('GET', `/v1/runs/${run.id}`)).body.status).toBe('running');
  });

  it.each(['putRun', 'commit'])('patching the spec, when %s fails: the spec is as it was', async (op) => {
    const s = await fresh(60_000);
    const run = await s.createRun();
    const before = (await s.call('GET', `/v1/runs/${run.id}/spec`)).body;
    failing(s, op);
    expect((await s.call('PATCH', `/v1/runs/${run.id}/spec`, { tagline: 'Never saved' })).status).toBe(500);
    failing(s, null);
    expect((await s.call('GET', `/v1/runs/${run.id}/spec`)).body).toEqual(before);
  });

  it('a pipeline tick that fails is not recorded, then tried again with backoff until it goes through', async () => {
    // On the sandbox's clock, whose waits (ticks, the retries' backoff) pass at once: their lengths are read back.
    const clock = new FakeClock({ autoMs: 9_000 });
    const s = await fresh(50, clock);
    const run = await s.createRun();
    const stage = s.store.runs.get(run.id)!.run.stage;
    const seen = s.store.eventsOf(run.id).length;
    let refused = 0;
    s.store.failWrite = (o) => o === 'putRun' && ++refused <= 4; // the database refuses four ticks in a row
    await until(() => refused > 4, 'four refused ticks and a fifth try');
    failing(s, null);
    const done = await s.waitFor(run.id, (r) => r.gate_pending === 'idea');
    expect(done.stage).toBe('02_concept');
    const events = (
      await readSse(`${s.url}/v1/runs/${run.id}/events`, {}, (m) => m.some((x) => x.event === 'run.gate_pending'))
    ).filter((m) => m.data);
    expect(events.map((m) => Number(m.id))).toEqual(events.map((_, i) => i + 1)); // no gap, nothing twice
    expect(seen).toBeGreaterThan(0);
    expect(stage).toBe('01_intake');
    for (const backoff of [200, 400, 800, 1600]) expect(clock.requested).toContain(backoff);
  });

  it('after failures and a restart, the database holds exactly what memory held', async () => {
    const s = await fresh(60_000);
    const kept = await s.createRun('Kept');
    failing(s, 'putRun');
    await s.call('POST', '/v1/runs', idea);
    await s.call('POST', `/v1/runs/${kept.id}/cancel`);
    failing(s, null);
    const before = JSON.stringify((await s.call('GET', '/v1/runs')).body.data);
    const path = s.store.path;
    await s.close();
    sb = await startTestSandbox({ stageMs: 60_000, dataPath: path });
    expect(JSON.stringify((await sb.call('GET', '/v1/runs')).body.data)).toBe(before);
  });
});

/** The error node:sqlite throws when a write finds no room (SQLITE_FULL), made for real in a database capped at
 * 2 pages. */
function sqliteFull(): Error {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t(x); PRAGMA max_page_count = 2');
  try {
    db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
  } catch (err) {
    return err as Error;
  } finally {
    db.close();
  }
  throw new Error('the capped database took the write');
}

describe('a full disk', () => {
  const noSpace = Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
  it.each([
    ['SQLITE_FULL', sqliteFull()],
    ['ENOSPC', noSpace],
  ])("%s at the store's write: 503 unavailable with Retry-After, the disk is full; nothing kept", async (_, err) => {
    const s = await fresh(60_000);
    s.store.failWrite = (op) => (op === 'putRun' ? err : false);
    const r = await s.call('POST', '/v1/runs', idea);
    s.store.failWrite = null;
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ type: 'api_error', code: 'unavailable' });
    expect(r.body.error.message).toMatch(/disk is full/);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await s.call('GET', '/v1/runs')).body.data).toEqual([]);
    expect((await s.call('POST', '/v1/runs', idea)).status).toBe(201);
  });

  it('orc says so at once: exit 3, the disk is full, no retry loop, nothing made', async () => {
    const s = await fresh(60_000);
    s.store.failWrite = (op) => (op === 'putRun' ? sqliteFull() : false);
    const create = ['run', 'create', '--pitch', 'On a full disk', '--audience', 'a', '--monetization', 'free'];
    const r = await runOrc(create, { env: { ORC_BASE_URL: s.url } });
    s.store.failWrite = null;
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/disk is full.*free some space/);
    expect(r.stderr).not.toContain('retrying');
    expect((await s.call('GET', '/v1/runs')).body.data).toEqual([]);
  });
});
