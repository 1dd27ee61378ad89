// Steering the sandbox (CONTRACT.md, "Sandbox control"), through the built orc and through plain HTTP on the
// admin API, against a real `orc sandbox start` process: time (a manual clock, advance), triggers, faults,
// reset, export and import, exec, and the journal.
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../src/contract/events.js';
import { freshConfigDir, orc, startSandboxProcess, type OrcProcess } from '../helpers/cli.js';
import { KEY, readSse } from '../helpers/sandbox.js';
import { handServer, json } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const http = async (url: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const idea = (pitch: string) => ({ mode: 'idea', idea: { pitch, audience: 'testers', monetization: 'free' } });

let manual: { url: string; proc: OrcProcess };
const ctl = (args: string[], env: Record<string, string> = {}) => orc(['sandbox', ...args], { env: { ORC_BASE_URL: manual.url, ...env } });
beforeAll(async () => {
  manual = await startSandboxProcess(['--port', '0', '--memory', '--clock', 'manual', '--stage-ms', '1h', '--retry-base-ms', '10'], { configDir: freshConfigDir() });
});
afterAll(async () => {
  manual.proc.kill('SIGTERM');
  await manual.proc;
});

describe('time', () => {
  it('stands still until advanced; advance --by 1d moves every run and fires what falls due, on virtual timestamps', async () => {
    const created = (await http(manual.url, 'POST', '/v1/runs', idea('Hours long'))).body;
    const before = JSON.parse((await ctl(['clock', '--json'])).stdout);
    expect(before.mode).toBe('manual');
    expect(before.runs.map((r: { id: string }) => r.id)).toContain(created.id);
    expect((await http(manual.url, 'GET', `/v1/runs/${created.id}`)).body.stage).toBe('01_intake'); // nothing moved
    const started = Date.now();
    const r = await ctl(['advance', '--by', '1d', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000); // a day of 1 h stages, in real seconds at most
    const moved = JSON.parse(r.stdout);
    expect(Date.parse(moved.now) - Date.parse(before.now)).toBe(24 * 3600 * 1000);
    const run = (await http(manual.url, 'GET', `/v1/runs/${created.id}`)).body;
    expect(run.gate_pending).toBe('idea'); // two stages of an hour each, then the gate waits
    expect(Date.parse(run.updated_at) - Date.parse(run.created_at)).toBeGreaterThanOrEqual(3600 * 1000); // at least a stage of virtual time
    // Timestamps never go backwards.
    const events = (await readSse(`${manual.url}/v1/runs/${created.id}/events`, {}, (ms) => ms.some((m) => m.event === 'run.gate_pending'))).filter((m) => m.data);
    const times = events.map((m) => Date.parse(JSON.parse(m.data!).created_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('advance --by 1d, each gate approved as it opens, ends a run of 1 h stages in four advances (the build described on the way)', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Days long'))).body.id;
    const gates: string[] = [];
    for (let i = 0; i < 4; i++) {
      expect((await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '1d' })).status).toBe(200);
      const run = (await http(manual.url, 'GET', `/v1/runs/${id}`)).body;
      if (run.gate_pending) {
        gates.push(run.gate_pending);
        expect((await http(manual.url, 'POST', `/v1/runs/${id}/gates/${run.gate_pending}:approve`, {})).status).toBe(200);
      }
    }
    expect(gates).toEqual(['idea', 'brand', 'final']);
    expect((await http(manual.url, 'GET', `/v1/runs/${id}`)).body.status).toBe('accepted');
  });

  it('advance <run> --to gate:final parks one run at its final gate (the gates before it approved); --to end finishes it', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('To the final gate'))).body.id;
    const r = await ctl(['advance', id, '--to', 'gate:final']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${id}\\tawaiting_approval\\t07_scoring\\tgate final$`));
    const gates = (await http(manual.url, 'GET', `/v1/runs/${id}/gates`)).body.data;
    expect(gates.map((g: { state: string }) => g.state)).toEqual(['approved', 'approved', 'pending']);
    // Plain HTTP does the same: to the end (the final gate approved on the way).
    const end = await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: 'end' });
    expect(end.status).toBe(200);
    expect(end.body).toMatchObject({ reached: true, run: { id, status: 'accepted' } });
  });

  it('signed artifact URLs expire on the virtual clock: 300 s after they are made, not a moment before', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Signed and expired'))).body.id;
    expect((await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: 'end' })).status).toBe(200);
    const now = Date.parse((await http(manual.url, 'GET', '/_sandbox/clock')).body.now);
    const [file] = (await http(manual.url, 'GET', `/v1/runs/${id}/artifacts/ipa`)).body.files;
    expect(Date.parse(file.expires_at) - now).toBeGreaterThanOrEqual(300_000);
    expect(Date.parse(file.expires_at) - now).toBeLessThan(301_000);
    const head = () => fetch(file.url, { method: 'HEAD' }).then((r) => r.status);
    expect(await head()).toBe(200);
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '299s' });
    expect(await head()).toBe(200);
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '2s' });
    expect(await head()).toBe(403);
  });

  it('an Idempotency-Key is kept 24 h of virtual time: the same create answers the same run until advance moves past it', async () => {
    const create = () =>
      fetch(`${manual.url}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': 'retention-under-advance' }, body: JSON.stringify(idea('Kept a day')) }).then(async (r) => ((await r.json()) as { id: string }).id);
    const first = await create();
    expect(await create()).toBe(first);
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '23h' });
    expect(await create()).toBe(first);
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '2h' });
    const later = await create();
    expect(later).toMatch(/^run_/);
    expect(later).not.toBe(first);
  });

  it('refuses to advance the whole clock of a sandbox on real time, and a --to without a run (exit 2)', async () => {
    const noRun = await ctl(['advance', '--to', 'end']);
    expect(noRun.exitCode).toBe(2);
    expect(noRun.stderr).toContain('--to moves one run');
    const bad = await ctl(['advance', '--by', 'soon']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--by must be a duration');
  });
});

describe('triggers', () => {
  let receiver: Server;
  let receiverUrl: string;
  const got: Array<{ body: string; signature: string }> = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ body, signature: String(req.headers['x-service-signature']) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

  it('every event kind can be triggered for real: on the stream, and delivered signed to webhooks', async () => {
    const hook = (await http(manual.url, 'POST', '/v1/webhooks', { url: receiverUrl, events: ['*'] })).body;
    // Every kind through the admin API; two of them through the built orc as well.
    const [viaOrc, ...viaHttp] = await Promise.all([
      Promise.all(['run.accepted', 'run.gate_resolved'].map((kind) => ctl(['trigger', kind, '--json']))),
      ...EVENT_KINDS.map((kind) => http(manual.url, 'POST', '/_sandbox/trigger', { kind })),
    ]);
    for (const r of viaOrc) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(['run.accepted', 'run.gate_resolved']).toContain(JSON.parse(r.stdout).event.type);
    }
    for (const [i, kind] of EVENT_KINDS.entries()) {
      const r = viaHttp[i]!;
      expect(r.status, `${kind}: ${JSON.stringify(r.body)}`).toBe(200);
      const { run, event } = r.body;
      expect(event.type, kind).toBe(kind);
      const history = (await readSse(`${manual.url}/v1/runs/${run.id}/events`, {}, (ms) => ms.some((m) => m.event === kind))).map((m) => m.event);
      expect(history, kind).toContain(kind);
    }
    // The deliveries run on the sandbox's clock: moving it lets them go.
    await until(() => got.some((g) => JSON.parse(g.body).type === 'run.failed'), 'a delivery of run.failed', 20_000);
    const failed = got.find((g) => JSON.parse(g.body).type === 'run.failed')!;
    const [t, v1] = failed.signature.split(',').map((p) => p.split('=')[1]);
    expect(createHmac('sha256', hook.secret).update(`${t}.${failed.body}`).digest('hex')).toBe(v1);
  }, 60_000);

  it('fault add --webhook fails a delivery as the sandbox answering for the receiver; the retry arrives, and the journal shows both', async () => {
    const hook = (await http(manual.url, 'POST', '/v1/webhooks', { url: receiverUrl.replace('/hook', '/faulted'), events: ['run.created'] })).body;
    const added = await ctl(['fault', 'add', '--webhook', hook.id, '--times', '1', '--json']);
    expect(added.exitCode, added.stderr).toBe(0);
    const fault = JSON.parse(added.stdout);
    const seen = got.length;
    const { run } = (await http(manual.url, 'POST', '/_sandbox/trigger', { kind: 'run.created' })).body;
    const mine = () => got.slice(seen).filter((g) => g.body.includes(run.id));
    const entries = async () => ((await http(manual.url, 'GET', '/_sandbox/logs')).body.data as Array<{ type: string; webhook_id?: string; status: number | null; fault: string | null }>).filter((e) => e.type === 'delivery' && e.webhook_id === hook.id);
    // The retry waits on the sandbox's (manual) clock: move it until the receiver has the event.
    for (let i = 0; i < 200 && !(await entries()).some((e) => e.status === 200); i++) await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '1m' });
    const attempts = await entries();
    expect(attempts[0]).toMatchObject({ fault: fault.id });
    expect(attempts.at(-1)).toMatchObject({ status: 200, fault: null });
    expect(mine().length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse((await ctl(['fault', 'list', '--json'])).stdout).find((f: { id: string }) => f.id === fault.id)).toMatchObject({ applied: 1 });
    await http(manual.url, 'DELETE', `/v1/webhooks/${hook.id}`);
  });

  it('a failure at a chosen stage with a chosen error; a rejection with a reason; a scorecard that does not pass', async () => {
    const failed = await ctl(['trigger', 'run.failed', '--stage', '06_qa', '--error', 'qa_failed: crash on launch']);
    expect(failed.exitCode, failed.stderr).toBe(0);
    const id = failed.stdout.trim();
    const run = (await http(manual.url, 'GET', `/v1/runs/${id}`)).body;
    expect(run).toMatchObject({ status: 'failed', stage: '06_qa' });
    const ev = (await readSse(`${manual.url}/v1/runs/${id}/events`)).filter((m) => m.event === 'run.failed').map((m) => JSON.parse(m.data!).data);
    expect(ev).toEqual([{ stage: '06_qa', error: { code: 'qa_failed', message: 'crash on launch' } }]);
    const rejected = JSON.parse((await ctl(['trigger', 'run.rejected', '--reason', 'Guideline 4.2', '--json'])).stdout);
    expect(rejected.event.data).toEqual({ reason: 'Guideline 4.2' });
    const scored = await http(manual.url, 'POST', '/_sandbox/trigger', { kind: 'run.scored', passed: false });
    expect(scored.status).toBe(200);
    expect(scored.body.event.data.passed).toBe(false);
    const late = await ctl(['trigger', 'run.failed', '--run', id]);
    expect(late.exitCode).toBe(3); // a failed run cannot fail again
  });
});

describe('faults', () => {
  it('an injected 500 on a create creates nothing; orc retries with the same Idempotency-Key and one run is made; the journal shows both', async () => {
    await ctl(['fault', 'clear']);
    const add = await ctl(['fault', 'add', '--route', 'POST /v1/runs', '--status', '500', '--times', '1']);
    expect(add.exitCode, add.stderr).toBe(0);
    const fid = add.stdout.trim();
    const before = (await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length;
    const created = await orc(['run', 'create', '--pitch', 'Through a fault', '--audience', 'x', '--monetization', 'free', '--json'], { env: { ORC_BASE_URL: manual.url } });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stderr).toContain('500 internal_error; retrying');
    expect((await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length).toBe(before + 1);
    const logs = JSON.parse((await ctl(['logs', '--json'])).stdout) as Array<{ type: string; path?: string; status: number; fault: string | null; idempotency_key?: string | null }>;
    const creates = logs.filter((e) => e.type === 'request' && e.path === '/v1/runs' && e.idempotency_key);
    const last2 = creates.slice(-2);
    expect(last2.map((e) => [e.status, e.fault])).toEqual([[500, fid], [201, null]]);
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
    expect(((await limited.json()) as { error: unknown }).error).toMatchObject({ type: expect.any(String), code: expect.any(String), message: expect.stringContaining(id) });
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
    const all = (await readSse(`${manual.url}/v1/runs/${id}/events`, {}, (ms) => ms.some((m) => m.event === 'run.gate_pending'))).filter((m) => m.data && m.event !== 'log');
    expect(watched.stdout.split('\n').filter(Boolean).filter((l) => JSON.parse(l).type !== 'log').length).toBeGreaterThanOrEqual(all.length - 1);

    const pattern = async () => {
      await http(manual.url, 'DELETE', '/_sandbox/faults');
      await http(manual.url, 'POST', '/_sandbox/faults', { route: 'GET /v1/webhooks', status: 500, probability: 0.5, seed: 7 });
      const out: number[] = [];
      for (let i = 0; i < 12; i++) out.push((await fetch(`${manual.url}/v1/webhooks`, { headers: { authorization: `Bearer ${KEY}` } })).status);
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
    await expect(fetch(`${manual.url}/v1/runs/${id}/gates`, { headers: { authorization: `Bearer ${KEY}` } })).rejects.toThrow();
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
    const snap = JSON.parse(readFileSync(file, 'utf8'));
    expect(snap).toMatchObject({ format: 'orc-sandbox-snapshot', schema: 2 });

    const other = await startSandboxProcess(['--port', '0', '--memory', '--import', file, '--stage-ms', '1h', '--clock', 'manual'], { configDir: freshConfigDir() });
    try {
      const there = await http(other.url, 'GET', `/v1/runs/${id}`);
      expect(there.body).toEqual((await http(manual.url, 'GET', `/v1/runs/${id}`)).body);
      expect((await http(other.url, 'GET', '/v1/runs?limit=100')).body.data.length).toBe(snap.runs.length);
      // The steered clock starts no earlier than the snapshot's time (this one is days ahead of real time).
      expect(Date.parse((await http(other.url, 'GET', '/_sandbox/clock')).body.now)).toBeGreaterThanOrEqual(Date.parse(snap.exported_at));
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
    const onDisk = await startSandboxProcess(['--port', '0', '--data-dir', data, '--import', file], { configDir: freshConfigDir() });
    try {
      expect((await http(onDisk.url, 'GET', `/v1/runs/${id}`)).status).toBe(200);
    } finally {
      onDisk.proc.kill('SIGTERM');
      await onDisk.proc;
    }
    const twice = await orc(['sandbox', 'start', '--port', '0', '--data-dir', data, '--import', file], { configDir: freshConfigDir() });
    expect(twice.exitCode, twice.stderr).toBe(1);
    expect(twice.stderr).toContain('a new --data-dir');
    expect(twice.stderr).toContain('only into an empty sandbox');
    const broken = await orc(['sandbox', 'start', '--memory', '--port', '0', '--import', join(dir, 'missing.json')]);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toContain('--import');
  }, 30_000);

  it('exec runs a command against a fresh sandbox, with its URL and key in the environment, and exits with its status', async () => {
    const script = "const r = await fetch(process.env.ORC_BASE_URL + '/v1/runs', { headers: { authorization: 'Bearer ' + process.env.ORC_API_KEY } }); console.log('status', r.status, process.env.ORC_SANDBOX_URL === process.env.ORC_BASE_URL); process.exit(3);";
    const r = await orc(['sandbox', 'exec', '--', process.execPath, '--input-type=module', '-e', script]);
    expect(r.stdout).toContain('status 200 true');
    expect(r.exitCode).toBe(3);
    const none = await orc(['sandbox', 'exec']);
    expect(none.exitCode).toBe(2);
  });
});

describe('the journal and the rules', () => {
  it('logs --follow prints each request as it is answered', async () => {
    const follow = orc(['sandbox', 'logs', '--follow'], { env: { ORC_BASE_URL: manual.url } });
    let out = '';
    follow.stdout!.on('data', (c: Buffer) => (out += c));
    await until(() => out.length > 0 || follow.exitCode !== null, 'the journal so far', 20_000);
    await http(manual.url, 'GET', '/v1/runs/run_followed');
    await until(() => out.includes('GET /v1/runs/run_followed  404'), 'the followed request', 20_000);
    follow.kill('SIGINT');
    expect((await follow).exitCode).toBe(130);
  });

  it('start --verbose prints a line per request on stderr; --journal-size bounds what logs keeps', async () => {
    const loud = await startSandboxProcess(['--port', '0', '--memory', '--verbose', '--journal-size', '2'], { configDir: freshConfigDir() });
    let err = '';
    loud.proc.stderr!.on('data', (c: Buffer) => (err += c));
    try {
      await http(loud.url, 'GET', '/v1/runs/run_loud');
      await until(() => /GET \/v1\/runs\/run_loud {2}404 {2}\d+ ms {2}req_/.test(err), 'the request line', 20_000);
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
    const fake = await handServer((_req, res) => json(res, 404, { error: { type: 'not_found_error', code: 'not_found', message: 'nothing here' } }));
    try {
      const r = await orc(['sandbox', 'clock'], { env: { ORC_BASE_URL: fake.url, ORC_API_KEY: 'sk_test_somewhere_else_1234' } });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('is not an orc sandbox');
    } finally {
      await fake.close();
    }
    expect((await fetch(`${manual.url}/_sandbox/clock`)).status).toBe(401);
  });
});
