// Steering the sandbox (CONTRACT.md, "Sandbox control"), through the built orc and through plain HTTP on the
// admin API, against a real `orc sandbox start` process: faults, reset, export and import, exec, and the
// journal. Time and triggers: sandbox-control.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshConfigDir, orc, startSandboxProcess } from '../helpers/cli.js';
import { KEY, readSse } from '../helpers/sandbox.js';
import { handServer, json } from '../helpers/server.js';
import { http, idea, manualSandbox } from '../helpers/steer.js';
import { until } from '../helpers/until.js';

const manual = manualSandbox();
const ctl = manual.ctl;

describe('faults', () => {
  it('an injected 500 on a create creates nothing; orc retries with the same Idempotency-Key and one run is made; the journal shows both', async () => {
    await ctl(['fault', 'clear']);
    const add = await ctl(['fault', 'add', '--route', 'POST /v1/runs', '--status', '500', '--times', '1']);
    expect(add.exitCode, add.stderr).toBe(0);
    const fid = add.stdout.trim();
    const before = (await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length;
    const created = await orc(
      ['run', 'create', '--pitch', 'Through a fault', '--audience', 'x', '--monetization', 'free', '--json'],
      { env: { ORC_BASE_URL: manual.url } },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stderr).toContain('500 internal_error; retrying');
    expect((await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length).toBe(before + 1);
    const logs = JSON.parse((await ctl(['logs', '--json'])).stdout) as Array<{
      type: string;
      path?: string;
      status: number;
      fault: string | null;
      idempotency_key?: string | null;
    }>;
    const creates = logs.filter((e) => e.type === 'request' && e.path === '/v1/runs' && e.idempotency_key);
    const last2 = creates.slice(-2);
    expect(last2.map((e) => [e.status, e.fault])).toEqual([
      [500, fid],
      [201, null],
    ]);
    expect(last2[0]!.idempotency_key).toBe(last2[1]!.idempotency_key);
    const list = JSON.parse((await ctl(['fault', 'list', '--json'])).stdout);
    expect(list).toEqual([expect.objectContaining({ id: fid, applied: 1 })]);
  });

  it('a 429 with Retry-After and its error envelope, until fault remove takes it away; removing it again is not found', async () => {
    const added = await ctl(['fault', 'add', '--route', 'GET /v1/webhooks', '--status', '429', '--json']);
    expect(added.exitCode, added.stderr).toBe(0);
    const { id } = JSON.parse(added.stdout);
    const limited = await fetch(`${manual.url}/v1/webhooks`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: unknown }).error).toMatchObject({
      type: expect.any(String),
      code: expect.any(String),
      message: expect.stringContaining(id),
    });
    const removed = await ctl(['fault', 'remove', id]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect((await http(manual.url, 'GET', '/v1/webhooks')).status).toBe(200);
    const again = await ctl(['fault', 'remove', id]);
    expect(again.exitCode).toBe(3);
    expect(again.stderr).toContain(id);
  });

  it('an event stream cut after N events; a seeded probability hits the same requests each time; a latency; a reset', async () => {
    await http(manual.url, 'DELETE', '/_sandbox/faults');
    const id = (await http(manual.url, 'POST', '/_sandbox/trigger', { kind: 'run.gate_pending' })).body.run.id;
    await http(manual.url, 'POST', '/_sandbox/faults', { route: 'GET /v1/runs/{run}/events', cut_after: 3, times: 1 });
    const cut = await readSse(`${manual.url}/v1/runs/${id}/events`).catch(() => 'cut');
    expect(cut === 'cut' || (Array.isArray(cut) && cut.filter((m) => m.data).length === 3)).toBe(true);
    // watch resumes after the cut and shows every event once.
    const watched = await orc(['watch', id, '--until-gate', '--json'], { env: { ORC_BASE_URL: manual.url } });
    expect(watched.exitCode).toBe(6);
    const all = (
      await readSse(`${manual.url}/v1/runs/${id}/events`, {}, (ms) => ms.some((m) => m.event === 'run.gate_pending'))
    ).filter((m) => m.data && m.event !== 'log');
    expect(
      watched.stdout
        .split('\n')
        .filter(Boolean)
        .filter((l) => JSON.parse(l).type !== 'log').length,
    ).toBeGreaterThanOrEqual(all.length - 1);

    const pattern = async () => {
      await http(manual.url, 'DELETE', '/_sandbox/faults');
      await http(manual.url, 'POST', '/_sandbox/faults', {
        route: 'GET /v1/webhooks',
        status: 500,
        probability: 0.5,
        seed: 7,
      });
      const out: number[] = [];
      for (let i = 0; i < 12; i++)
        out.push((await fetch(`${manual.url}/v1/webhooks`, { headers: { authorization: `Bearer ${KEY}` } })).status);
      return out;
    };
    const a = await pattern();
    expect(a).toContain(500);
    expect(a).toContain(200);
    expect(await pattern()).toEqual(a);

    await http(manual.url, 'DELETE', '/_sandbox/faults');
    await http(manual.url, 'POST', '/_sandbox/faults', { route: 'GET /v1/runs/{run}', latency_ms: 300, times: 1 });
    const t0 = Date.now();
    expect((await http(manual.url, 'GET', `/v1/runs/${id}`)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    await http(manual.url, 'POST', '/_sandbox/faults', { route: 'GET /v1/runs/{run}/gates', reset: true, times: 1 });
    await expect(
      fetch(`${manual.url}/v1/runs/${id}/gates`, { headers: { authorization: `Bearer ${KEY}` } }),
    ).rejects.toThrow();
    await http(manual.url, 'DELETE', '/_sandbox/faults');
  });
});

describe('state', () => {
  it('export writes a snapshot atomically; start --import starts from it; reset empties the sandbox and keeps its key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-snap-'));
    const file = join(dir, 'snap.json');
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Kept in a snapshot'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '2d' }); // the snapshot's time, ahead of real time
    const ex = await ctl(['export', file, '--json']);
    expect(ex.exitCode, ex.stderr).toBe(0);
    expect(JSON.parse(ex.stdout).runs).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['snap.json']); // no temporary file left beside it
    // A failed export leaves nothing: here the name is taken by a folder, which stays as it was.
    mkdirSync(join(dir, 'taken'));
    const failed = await ctl(['export', join(dir, 'taken')]);
    expect(failed.exitCode).toBe(4);
    expect(failed.stderr).toContain(`cannot write to ${join(dir, 'taken')}: a folder stands where a file should be`);
    expect(failed.stderr).not.toContain('--dir');
    expect(readdirSync(dir).sort()).toEqual(['snap.json', 'taken']);
    expect(readdirSync(join(dir, 'taken'))).toEqual([]);
    const snap = JSON.parse(readFileSync(file, 'utf8'));
    expect(snap).toMatchObject({ format: 'orc-sandbox-snapshot', schema: 2 });

    const other = await startSandboxProcess(
      ['--port', '0', '--memory', '--import', file, '--stage-ms', '1h', '--clock', 'manual'],
      { configDir: freshConfigDir() },
    );
    try {
      const there = await http(other.url, 'GET', `/v1/runs/${id}`);
      expect(there.body).toEqual((await http(manual.url, 'GET', `/v1/runs/${id}`)).body);
      expect((await http(other.url, 'GET', '/v1/runs?limit=100')).body.data.length).toBe(snap.runs.length);
      // The steered clock starts no earlier than the snapshot's time (this one is days ahead of real time).
      expect(Date.parse((await http(other.url, 'GET', '/_sandbox/clock')).body.now)).toBeGreaterThanOrEqual(
        Date.parse(snap.exported_at),
      );
      const reset = await orc(['sandbox', 'reset'], { env: { ORC_BASE_URL: other.url } });
      expect(reset.exitCode).toBe(2); // no terminal to ask: --yes is needed
      expect((await orc(['sandbox', 'reset', '--yes'], { env: { ORC_BASE_URL: other.url } })).exitCode).toBe(0);
      expect((await http(other.url, 'GET', '/v1/runs')).body.data).toEqual([]);
      expect((await http(other.url, 'POST', '/v1/runs', idea('After the reset'))).status).toBe(201);
    } finally {
      other.proc.kill('SIGTERM');
      await other.proc;
    }
    // Into a fresh data folder: kept there; the same folder, now holding runs, refuses a second import (exit 1, and says where to import instead).
    const data = join(dir, 'data');
    const onDisk = await startSandboxProcess(['--port', '0', '--data-dir', data, '--import', file], {
      configDir: freshConfigDir(),
    });
    try {
      expect((await http(onDisk.url, 'GET', `/v1/runs/${id}`)).status).toBe(200);
    } finally {
      onDisk.proc.kill('SIGTERM');
      await onDisk.proc;
    }
    const twice = await orc(['sandbox', 'start', '--port', '0', '--data-dir', data, '--import', file], {
      configDir: freshConfigDir(),
    });
    expect(twice.exitCode, twice.stderr).toBe(1);
    expect(twice.stderr).toContain('a new --data-dir');
    expect(twice.stderr).toContain('only into an empty sandbox');
    const broken = await orc(['sandbox', 'start', '--memory', '--port', '0', '--import', join(dir, 'missing.json')]);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toContain('--import');
  }, 30_000);

  it('start --import refuses a snapshot with a null or a bad record: one line naming it, exit 2, nothing started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-snap-'));
    const write = (name: string, snap: object) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        JSON.stringify({
          format: 'orc-sandbox-snapshot',
          schema: 2,
          exported_at: '2026-11-22T10:00:00.000Z',
          runs: [],
          events: {},
          webhooks: [],
          deliveries: [],
          ...snap,
        }),
      );
      return file;
    };
    const hook = {
      seq: 1,
      id: 'wh_1',
      url: 'http://203.0.113.9/steal',
      events: ['*'],
      secret: 'whsec_x',
      status: 'enabled',
      created_at: '2026-11-22T10:00:00.000Z',
    };
    for (const [file, line] of [
      [write('null.json', { runs: [null] }), 'runs[0] must be an object, not null'],
      [
        write('hook.json', { webhooks: [hook] }),
        'webhooks[0] ("wh_1") url: plain http:// is only for this machine (127.0.0.1, ::1, localhost); use https:// for 203.0.113.9',
      ],
    ] as const) {
      const r = await orc(['sandbox', 'start', '--memory', '--port', '0', '--import', file], {
        configDir: freshConfigDir(),
      });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).not.toContain('listening');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`--import ${file}: ${line}`);
    }
    // nor a data folder made for it
    const data = join(dir, 'data');
    const into = await orc(['sandbox', 'start', '--data-dir', data, '--port', '0', '--import', join(dir, 'null.json')]);
    expect(into.exitCode).toBe(2);
    expect(existsSync(data)).toBe(false);
  }, 30_000);

  it('exec runs a command against a fresh sandbox, with its URL and key in the environment, and exits with its status', async () => {
    const script =
      "const r = await fetch(process.env.ORC_BASE_URL + '/v1/runs', { headers: { authorization: 'Bearer ' + process.env.ORC_API_KEY } }); console.log('status', r.status, process.env.ORC_SANDBOX_URL === process.env.ORC_BASE_URL); process.exit(3);";
    const r = await orc(['sandbox', 'exec', '--', process.execPath, '--input-type=module', '-e', script]);
    expect(r.stdout).toContain('status 200 true');
    expect(r.exitCode).toBe(3);
    const none = await orc(['sandbox', 'exec']);
    expect(none.exitCode).toBe(2);
  });
});

describe('the journal and the rules', () => {
  it('logs --follow prints each request as it is answered', async () => {
    // A request before it starts, so "the journal so far" has a line to wait for whatever ran before.
    await http(manual.url, 'GET', '/v1/runs/run_before');
    const follow = orc(['sandbox', 'logs', '--follow'], { env: { ORC_BASE_URL: manual.url } });
    let out = '';
    follow.stdout!.on('data', (c: Buffer) => (out += c));
    await until(() => out.includes('GET /v1/runs/run_before  404') || follow.exitCode !== null, 'the journal so far');
    await http(manual.url, 'GET', '/v1/runs/run_followed');
    await until(() => out.includes('GET /v1/runs/run_followed  404'), 'the followed request');
    follow.kill('SIGINT');
    expect((await follow).exitCode).toBe(130);
  });

  it('start --verbose prints a line per request on stderr; --journal-size bounds what logs keeps', async () => {
    const loud = await startSandboxProcess(['--port', '0', '--memory', '--verbose', '--journal-size', '2'], {
      configDir: freshConfigDir(),
    });
    let err = '';
    loud.proc.stderr!.on('data', (c: Buffer) => (err += c));
    try {
      await http(loud.url, 'GET', '/v1/runs/run_loud');
      await until(() => /GET \/v1\/runs\/run_loud {2}404 {2}\d+ ms {2}req_/.test(err), 'the request line');
      await http(loud.url, 'GET', '/v1/runs/run_second');
      await http(loud.url, 'GET', '/v1/runs/run_third');
      const kept = (await http(loud.url, 'GET', '/_sandbox/logs')).body.data;
      expect(kept.map((e: { path: string }) => e.path)).toEqual(['/v1/runs/run_second', '/v1/runs/run_third']);
    } finally {
      loud.proc.kill('SIGTERM');
      await loud.proc;
    }
  });

  it('the controls refuse a service that is not a sandbox, and a live key (exit 2); the admin API needs the key', async () => {
    const fake = await handServer((_req, res) =>
      json(res, 404, { error: { type: 'not_found_error', code: 'not_found', message: 'nothing here' } }),
    );
    try {
      const r = await orc(['sandbox', 'clock'], {
        env: { ORC_BASE_URL: fake.url, ORC_API_KEY: 'sk_test_somewhere_else_1234' },
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('is not an orc sandbox');
    } finally {
      await fake.close();
    }
    expect((await fetch(`${manual.url}/_sandbox/clock`)).status).toBe(401);
  });
});
