// The sandbox's own state: one sandbox per data folder, private files, a busy database that answers
// quickly, a canceled run without a pending gate, and memory that stays flat while a big file is served.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { ManualClock } from '../../src/sandbox/manual-clock.js';
import { systemClock } from '../../src/lib/clock.js';
import { readSnapshot } from '../../src/sandbox/admin.js';
import { driveToEnd, quickClock, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

const freshData = () => join(mkdtempSync(join(tmpdir(), 'orc-state-')), 'data', 'sandbox.db');

describe('the data folder', () => {
  it('holds one sandbox at a time; the second is refused naming the pid that holds it', async () => {
    const dataPath = freshData();
    const first = await startTestSandbox({ dataPath });
    try {
      const err = (await startSandbox({ port: 0, dataPath }).catch((e: unknown) => e)) as {
        code: string;
        message: string;
      };
      expect(err.code).toBe('ERR_SANDBOX_LOCKED');
      expect(err.message).toContain(`in use by another sandbox (pid ${process.pid})`);
    } finally {
      await first.close();
    }
    const again = await startTestSandbox({ dataPath }); // released on close
    await again.close();
  });

  it('is 0700 and its database 0600: it holds webhook secrets and the file-signing secret', async () => {
    const dataPath = freshData();
    const sb = await startTestSandbox({ dataPath });
    try {
      await sb.createRun();
      expect(statSync(join(dataPath, '..')).mode & 0o777).toBe(0o700);
      expect(statSync(dataPath).mode & 0o777).toBe(0o600);
      expect(statSync(`${dataPath}-wal`).mode & 0o777).toBe(0o600);
    } finally {
      await sb.close();
    }
  });

  it('every file the sandbox writes there is 0600 (the lock and its journal too), every folder 0700', async () => {
    const dataPath = freshData();
    const dir = join(dataPath, '..');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'sandbox.pid'), '1\n', { mode: 0o644 }); // as an earlier sandbox left it
    const sb = await startTestSandbox({ dataPath });
    try {
      await sb.createRun();
      const modes = readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => {
        const st = statSync(join(dir, name));
        return [name, (st.mode & 0o777).toString(8), st.isDirectory() ? '700' : '600'];
      });
      expect(modes.map(([name]) => name)).toEqual(
        expect.arrayContaining(['sandbox.db', 'sandbox.lock.db', 'sandbox.pid']),
      );
      for (const [name, mode, want] of modes) expect(`${name} ${mode}`).toBe(`${name} ${want}`);
    } finally {
      await sb.close();
    }
  });

  it("starts from the runs' list fields kept beside their records; a database from before them gets them once, the same runs listed", async () => {
    const dataPath = freshData();
    const sb = await startTestSandbox({ dataPath, stageMs: 60_000 });
    const made = [await sb.createRun(), await sb.createRun('A tide table')];
    const before = (await sb.call('GET', '/v1/runs?limit=10')).body;
    await sb.close();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(dataPath);
    expect(
      db
        .prepare('SELECT id FROM run_list ORDER BY seq')
        .all()
        .map((r) => r.id),
    ).toEqual(made.map((r) => r.id));
    // as an earlier orc left it: no list table, no triggers
    db.exec(
      'DROP TRIGGER run_list_insert; DROP TRIGGER run_list_update; DROP TRIGGER run_list_delete; DROP TABLE run_list;',
    );
    db.close();
    const again = await startTestSandbox({ dataPath, stageMs: 60_000 });
    try {
      expect((await again.call('GET', '/v1/runs?limit=10')).body).toEqual(before);
      await again.call('POST', `/v1/runs/${made[0].id}/cancel`);
      const check = new DatabaseSync(dataPath);
      const row = check.prepare('SELECT run FROM run_list WHERE id = ?').get(made[0].id) as { run: string };
      check.close();
      expect(JSON.parse(row.run).status).toBe('canceled'); // kept with every write since
    } finally {
      await again.close();
    }
  });

  it('a corrupt row is reported by run id in one line', async () => {
    const dataPath = freshData();
    const sb = await startTestSandbox({ dataPath, stageMs: 60_000 });
    const run = await sb.createRun();
    await sb.close();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(dataPath);
    db.prepare('UPDATE runs SET body = ? WHERE id = ?').run('{"run": {"id": "broken"', run.id);
    db.close();
    const err = (await startSandbox({ port: 0, dataPath }).catch((e: unknown) => e)) as {
      code: string;
      message: string;
    };
    expect(err.code).toBe('ERR_SANDBOX_CORRUPT');
    expect(err.message).toContain(`corrupt record for run ${run.id}`);
    expect(err.message.split('\n')).toHaveLength(1);
  });

  it('a database written by an earlier orc (schema 1, text keys) is moved over once: runs, events and webhooks kept', async () => {
    const dataPath = freshData();
    const a = await startTestSandbox({ dataPath, stageMs: 60_000 });
    const run = await a.createRun();
    const hook = (await a.call('POST', '/v1/webhooks', { url: 'https://example.com/h', events: ['*'] })).body;
    const events = a.store.eventsOf(run.id).map((e) => e.json);
    await a.close();
    // Put the rows back into the old layout, as orc before schema 2 left them.
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(dataPath);
    db.exec(`BEGIN;
      ALTER TABLE runs RENAME TO r2; ALTER TABLE events RENAME TO e2; ALTER TABLE webhooks RENAME TO w2; ALTER TABLE deliveries RENAME TO d2;
      CREATE TABLE runs (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
      CREATE TABLE webhooks (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE deliveries (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, body TEXT NOT NULL);
      INSERT INTO runs SELECT id, seq, body FROM r2; INSERT INTO events SELECT run_id, seq, type, body FROM e2 ORDER BY seq DESC;
      INSERT INTO webhooks SELECT id, seq, body FROM w2; INSERT INTO deliveries SELECT id, seq, body FROM d2;
      DROP TABLE r2; DROP TABLE e2; DROP TABLE w2; DROP TABLE d2; PRAGMA user_version = 0; COMMIT;`);
    db.close();
    const b = await startTestSandbox({ dataPath, stageMs: 60_000 });
    try {
      expect((await b.call('GET', `/v1/runs/${run.id}`)).body.id).toBe(run.id);
      expect(b.store.eventsOf(run.id).map((e) => e.json)).toEqual(events); // in order, though stored backwards
      expect((await b.call('GET', '/v1/webhooks')).body.data.map((w: { id: string }) => w.id)).toEqual([hook.id]);
      const again = await b.createRun('After the move');
      expect((await b.call('GET', '/v1/runs')).body.data.map((r: { id: string }) => r.id)).toEqual([again.id, run.id]);
    } finally {
      await b.close();
    }
    const check = new DatabaseSync(dataPath);
    expect(check.prepare('PRAGMA user_version').get()!.user_version).toBe(2);
    expect(check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE '%_v1'").get()!.n).toBe(0);
    check.close();
  });

  it('a database held by another process: a write answers 503 within a fraction of a second, and works once it is free', async () => {
    const dataPath = freshData();
    const sb = await startTestSandbox({ dataPath, stageMs: 60_000 });
    try {
      const { DatabaseSync } = await import('node:sqlite');
      const other = new DatabaseSync(dataPath);
      other.exec('BEGIN IMMEDIATE');
      // (how soon it answers is measured by `npm run bench -- timings`, beside a write to a free database)
      const r = await sb.call('POST', '/v1/runs', {
        mode: 'idea',
        idea: { pitch: 'Busy', audience: 'a', monetization: 'free' },
      });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('unavailable');
      expect(r.headers.get('retry-after')).toBe('1');
      other.exec('ROLLBACK');
      other.close();
      expect(
        (
          await sb.call('POST', '/v1/runs', {
            mode: 'idea',
            idea: { pitch: 'Free', audience: 'a', monetization: 'free' },
          })
        ).status,
      ).toBe(201);
    } finally {
      await sb.close();
    }
  });
});

describe('virtual time across a restart', () => {
  const createdAt = (sb: TestSandbox, runId: string) =>
    sb.store.eventsOf(runId).map((e) => Date.parse(JSON.parse(e.json).created_at as string));

  it('never goes back: a data folder starts no earlier than its latest time, steered or real', async () => {
    const dataPath = freshData();
    const start = Date.parse('2026-11-22T10:00:00.000Z');
    const steered = new ManualClock(start);
    const a = await startTestSandbox({ dataPath, stageMs: 60_000, clock: steered });
    steered.advanceTo(start + 2 * 86_400_000);
    const before = await a.createRun('Before');
    const latest = Math.max(...createdAt(a, before.id));
    steered.advanceTo(start + 3 * 86_400_000); // nothing happens then, but the clock was there
    await a.close();
    // a steered clock started afresh at the same real time
    const b = await startTestSandbox({ dataPath, stageMs: 60_000, clock: new ManualClock(start) });
    try {
      expect(b.clock.now()).toBeGreaterThanOrEqual(start + 3 * 86_400_000);
      const after = await b.createRun('After');
      expect(Math.min(...createdAt(b, after.id))).toBeGreaterThanOrEqual(latest);
    } finally {
      await b.close();
    }
    // a real clock behind it (the system's, set back to the start) runs on from there too
    const t0 = Date.now();
    const c = await startTestSandbox({
      dataPath,
      stageMs: 60_000,
      clock: { now: () => start + Date.now() - t0, timer: systemClock.timer },
    });
    try {
      expect(c.clock.now()).toBeGreaterThanOrEqual(start + 3 * 86_400_000);
      expect(Math.min(...createdAt(c, (await c.createRun('Later')).id))).toBeGreaterThanOrEqual(latest);
    } finally {
      await c.close();
    }
  });

  it('after a crash, starts no earlier than the newest event written', async () => {
    const dataPath = freshData();
    const start = Date.parse('2026-11-22T10:00:00.000Z');
    const steered = new ManualClock(start);
    const a = await startTestSandbox({ dataPath, stageMs: 60_000, clock: steered });
    steered.advanceTo(start + 86_400_000);
    const before = await a.createRun('Before');
    const latest = Math.max(...createdAt(a, before.id));
    // as a kill -9 leaves it: nothing written at the stop
    const { DatabaseSync } = await import('node:sqlite');
    await a.close();
    const db = new DatabaseSync(dataPath);
    db.exec("DELETE FROM meta WHERE key = 'latest_time'");
    db.close();
    const b = await startTestSandbox({ dataPath, stageMs: 60_000, clock: new ManualClock(start) });
    try {
      expect(b.clock.now()).toBeGreaterThanOrEqual(latest);
    } finally {
      await b.close();
    }
  });
});

describe('a snapshot on import', () => {
  /** A snapshot of a sandbox with a run at its end (gates decided, a scorecard), a canceled one, a webhook and its deliveries. */
  async function exported(): Promise<any> {
    const { createServer } = await import('node:http');
    const hooked = createServer((_req, res) => res.writeHead(200).end());
    await new Promise<void>((r) => hooked.listen(0, '127.0.0.1', r));
    const sb = await startTestSandbox({ stageMs: 60, clock: quickClock() });
    try {
      const hook = (
        await sb.call('POST', '/v1/webhooks', {
          url: `http://127.0.0.1:${(hooked.address() as { port: number }).port}/h`,
          events: ['*'],
        })
      ).body;
      const run = await sb.createRun();
      let rejected = false;
      await driveToEnd(sb, run.id, (gate) =>
        gate === 'brand' && !rejected ? ((rejected = true), { reject: 'Warmer' }) : 'approve',
      );
      const other = await sb.createRun('Stopped');
      await sb.call('POST', `/v1/runs/${other.id}/cancel`);
      await until(async () =>
        (await sb.call('GET', `/v1/webhooks/${hook.id}/deliveries?limit=100`)).body.data.some(
          (d: { status: string }) => d.status === 'succeeded',
        ),
      );
      return (await sb.call('GET', '/_sandbox/export')).body;
    } finally {
      await sb.close();
      hooked.close();
    }
  }

  it('reads back every record a sandbox exported', async () => {
    const snap = await exported();
    expect(snap.deliveries.length).toBeGreaterThan(0);
    expect(() => readSnapshot(JSON.stringify(snap))).not.toThrow();
  });

  it('refuses a record the API would not have made, in one line naming the record and its field', async () => {
    const snap = await exported();
    const refused = (change: (s: any) => void) => {
      const copy = structuredClone(snap);
      change(copy);
      try {
        readSnapshot(JSON.stringify(copy));
      } catch (err) {
        expect((err as Error).message.split('\n')).toHaveLength(1);
        return (err as Error).message;
      }
      return 'accepted';
    };
    const hook = snap.webhooks[0].id;
    const dlv = snap.deliveries[0].id;
    expect(refused((s) => (s.webhooks[0].url = 'http://example.com/steal'))).toBe(
      `webhooks[0] ("${hook}") url: plain http:// is only for this machine (127.0.0.1, ::1, localhost); use https:// for example.com`,
    );
    expect(refused((s) => (s.webhooks[0].events = ['run.exploded']))).toContain(`webhooks[0] ("${hook}") events:`);
    expect(refused((s) => (s.deliveries[0].id = 'dlv_x\r\nX-Evil: 1'))).toBe(
      'deliveries[0] ("dlv_x\\r\\nX-Evil: 1") id: must not contain control characters',
    );
    expect(refused((s) => (s.deliveries[0].webhook_id = 'wh_gone'))).toContain(
      `deliveries[0] ("${dlv}") webhook_id: no webhook "wh_gone"`,
    );
    expect(refused((s) => (s.deliveries[0].status = 'lost'))).toContain(
      `deliveries[0] ("${dlv}") status: must be one of pending, succeeded, failed`,
    );
    expect(refused((s) => (s.runs[0].run.status = 'exploded'))).toContain(
      `runs[0] ("${snap.runs[0].run.id}") run.status: must be one of running`,
    );
    expect(refused((s) => (s.runs[0].run.created_at = 'yesterday'))).toContain('run.created_at: must be a time');
    expect(refused((s) => (s.runs[0].run.id = 'run_../x'))).toContain('run.id: must not contain /');
    expect(refused((s) => (s.runs[0].run.id = 'wh_1'))).toContain('run.id: must be a run_… id');
    const firstEvents = Object.keys(snap.events)[0]!;
    expect(
      refused(
        (s) =>
          (s.events[firstEvents][0].json = s.events[firstEvents][0].json.replace(
            /"created_at":"[^"]+"/,
            '"created_at":"soon"',
          )),
      ),
    ).toContain(`events["${firstEvents}"][0] json.created_at: must be a time`);
    // null and duplicate records: one clear line, not a TypeError or SQLite's words
    expect(refused((s) => (s.runs[1] = null))).toBe('runs[1] must be an object, not null');
    expect(refused((s) => s.webhooks.push(s.webhooks[0]))).toBe(`webhooks[1] ("${hook}") id: "${hook}" appears twice`);
    expect(refused((s) => s.deliveries.push({ ...s.deliveries[0], id: 'dlv_other' }))).toContain(
      `deliveries[${snap.deliveries.length}] ("dlv_other") seq:`,
    );
    expect(refused((s) => (s.events[firstEvents] = null))).toBe(`events["${firstEvents}"]: must be an array`);
  });
});

describe("a gate's decisions", () => {
  /** A run whose idea gate was rejected with notes and then approved, and one waiting at its idea gate again
   * after a rejection, in a sandbox on this data folder. */
  async function decided(dataPath: string): Promise<{ runId: string; waitingId: string; gates: any[]; snap: any }> {
    const sb = await startTestSandbox({ dataPath, stageMs: 60, clock: quickClock() });
    try {
      const run = await sb.createRun('A sourdough timer');
      let rejected = false;
      await driveToEnd(sb, run.id, (gate) =>
        gate === 'idea' && !rejected ? ((rejected = true), { reject: 'Too generic' }) : 'approve',
      );
      const gates = (await sb.call('GET', `/v1/runs/${run.id}/gates`)).body.data;
      expect(gates[0].history.map((h: any) => [h.decision, h.notes])).toEqual([
        ['rejected', 'Too generic'],
        ['approved', null],
      ]);
      const waiting = await sb.createRun('A kite forecast');
      await sb.waitFor(waiting.id, (r) => r.gate_pending === 'idea');
      await sb.call('POST', `/v1/runs/${waiting.id}/gates/idea:reject`, { notes: 'Windier' });
      await sb.waitFor(waiting.id, (r) => r.gate_pending === 'idea');
      return { runId: run.id, waitingId: waiting.id, gates, snap: (await sb.call('GET', '/_sandbox/export')).body };
    } finally {
      await sb.close();
    }
  }
  const gatesOf = async (runId: string, opts: Parameters<typeof startTestSandbox>[0]) => {
    const sb = await startTestSandbox({ stageMs: 60_000, ...opts });
    try {
      return (await sb.call('GET', `/v1/runs/${runId}/gates`)).body.data;
    } finally {
      await sb.close();
    }
  };

  it('survive a restart on the same data folder, and an export and import', async () => {
    const dataPath = freshData();
    const { runId, gates, snap } = await decided(dataPath);
    expect(await gatesOf(runId, { dataPath })).toEqual(gates);
    expect(await gatesOf(runId, { importSnapshot: readSnapshot(JSON.stringify(snap)) })).toEqual(gates);
  });

  it('from before they were kept (a snapshot, a database row) load with the decision each gate still shows', async () => {
    const dataPath = freshData();
    const { runId, waitingId, gates, snap } = await decided(dataPath);
    // what an earlier orc kept: the last decision only, and nothing of a gate opened again
    const last = gates.map(({ history, ...gate }) => ({ ...gate, history: history.slice(-1) }));
    for (const rec of snap.runs) for (const gate of Object.values(rec.gates) as any[]) delete gate.history;
    expect(await gatesOf(runId, { importSnapshot: readSnapshot(JSON.stringify(snap)) })).toEqual(last);
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(dataPath);
    for (const name of ['idea', 'brand', 'final'])
      db.prepare(`UPDATE runs SET body = json_remove(body, '$.gates.${name}.history')`).run();
    db.close();
    const sb = await startTestSandbox({ dataPath, stageMs: 60_000 });
    try {
      expect((await sb.call('GET', `/v1/runs/${runId}/gates`)).body.data).toEqual(last);
      const approved = await sb.call('POST', `/v1/runs/${waitingId}/gates/idea:approve`);
      expect(approved.status, approved.text).toBe(200);
      expect(approved.body.gate.history).toEqual([
        { decision: 'approved', notes: null, decided_at: expect.any(String) },
      ]);
    } finally {
      await sb.close();
    }
    const broken = structuredClone(snap);
    broken.runs[0].gates.idea.history = [{ decision: 'maybe', notes: null, decided_at: gates[0].decided_at }];
    expect(() => readSnapshot(JSON.stringify(broken))).toThrow(/gates\.idea\.history\.0\.decision: must be one of/);
  });
});

describe('cancel and gates', () => {
  it('a canceled run has no pending gate, and deciding it is 409 run_not_active saying so', async () => {
    const sb = await startTestSandbox({ stageMs: 30 });
    try {
      const run = await sb.waitFor((await sb.createRun('Cancel at a gate')).id, (r) => r.gate_pending === 'idea');
      await sb.call('POST', `/v1/runs/${run.id}/cancel`);
      const gates = (await sb.call('GET', `/v1/runs/${run.id}/gates`)).body.data;
      expect(gates.map((g: { state: string }) => g.state)).toEqual(['waiting', 'waiting', 'waiting']);
      const r = await sb.call('POST', `/v1/runs/${run.id}/gates/idea:approve`);
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'run_not_active' });
      expect(r.body.error.message).toContain('canceled');
    } finally {
      await sb.close();
    }
  });
});

describe('artifacts', () => {
  it('a big ipa is served as a stream: memory stays flat while it downloads', async () => {
    const sb = await startTestSandbox({ stageMs: 20, ipaMib: 128 });
    try {
      const run = await sb.createRun('Big ipa');
      const ipaReady = async () => {
        const r = (await sb.call('GET', `/v1/runs/${run.id}`)).body;
        if (r.gate_pending) await sb.call('POST', `/v1/runs/${run.id}/gates/${r.gate_pending}:approve`);
        const m = (await sb.call('GET', `/v1/runs/${run.id}/artifacts`)).body.data.find(
          (a: { kind: string }) => a.kind === 'ipa',
        );
        return m.status === 'ready';
      };
      await until(ipaReady, 'the 128 MiB ipa ready, its gates approved on the way', {
        timeoutMs: 50_000,
        wake: (again) => sb.store.onCommit(again),
      });
      const file = (await sb.call('GET', `/v1/runs/${run.id}/artifacts/ipa`)).body.files[0];
      const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
      const before = rss();
      let peak = before;
      let bytes = 0;
      const res = await fetch(file.url);
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        peak = Math.max(peak, rss());
      }
      expect(bytes).toBe(file.size);
      expect(file.size).toBeGreaterThan(128 * 1024 * 1024);
      // Both ends live in this process; a file held whole would add at least its 128 MiB. Slices left to
      // V8's external-memory threshold added tens of MiB; collected while young (memory.ts), a few (docs/figures.md).
      expect(peak - before).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await sb.close();
    }
  }, 60_000);
});
