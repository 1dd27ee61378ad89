// Steering the sandbox (CONTRACT.md, "Sandbox control"), through the built orc and through plain HTTP on the
// admin API, against a real `orc sandbox start` process: time (a manual clock, advance) and triggers. Faults,
// state and the journal: sandbox-state.test.ts.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../src/contract/events.js';
import { KEY, readSse } from '../helpers/sandbox.js';
import { http, idea, manualSandbox } from '../helpers/steer.js';
import { until } from '../helpers/until.js';

const manual = manualSandbox();
const ctl = manual.ctl;

describe('time', () => {
  it('stands still until advanced; advance --by 1d moves every run and fires what falls due, on virtual timestamps', async () => {
    const created = (await http(manual.url, 'POST', '/v1/runs', idea('Hours long'))).body;
    const before = JSON.parse((await ctl(['clock', '--json'])).stdout);
    expect(before.mode).toBe('manual');
    expect(before.runs.map((r: { id: string }) => r.id)).toContain(created.id);
    expect((await http(manual.url, 'GET', `/v1/runs/${created.id}`)).body.stage).toBe('01_intake'); // nothing moved
    // (what a day of 1 h stages costs in real time: `npm run bench -- timings`)
    const r = await ctl(['advance', '--by', '1d', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const moved = JSON.parse(r.stdout);
    expect(Date.parse(moved.now) - Date.parse(before.now)).toBe(24 * 3600 * 1000);
    const run = (await http(manual.url, 'GET', `/v1/runs/${created.id}`)).body;
    expect(run.gate_pending).toBe('idea'); // two stages of an hour each, then the gate waits
    expect(Date.parse(run.updated_at) - Date.parse(run.created_at)).toBeGreaterThanOrEqual(3600 * 1000); // at least a stage of virtual time
    // Timestamps never go backwards.
    const events = (
      await readSse(`${manual.url}/v1/runs/${created.id}/events`, {}, (ms) =>
        ms.some((m) => m.event === 'run.gate_pending'),
      )
    ).filter((m) => m.data);
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
        expect((await http(manual.url, 'POST', `/v1/runs/${id}/gates/${run.gate_pending}:approve`, {})).status).toBe(
          200,
        );
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
      fetch(`${manual.url}/v1/runs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          'idempotency-key': 'retention-under-advance',
        },
        body: JSON.stringify(idea('Kept a day')),
      }).then(async (r) => ((await r.json()) as { id: string }).id);
    const first = await create();
    expect(await create()).toBe(first);
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '23h' });
    expect(await create()).toBe(first);
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '2h' });
    const later = await create();
    expect(later).toMatch(/^run_/);
    expect(later).not.toBe(first);
  });

  it('refuses a move past the year 9999 naming by (exit 2, 400), and the sandbox answers on as before', async () => {
    const before = JSON.parse((await ctl(['clock', '--json'])).stdout).now;
    const far = await ctl(['advance', '--by', '999999999d']);
    expect(far.exitCode).toBe(2);
    expect(far.stderr).toMatch(/\bby\b.*9999/);
    const huge = await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: 1e308 });
    expect(huge.status).toBe(400);
    expect(huge.body.error.field).toBe('by');
    const after = await ctl(['clock', '--json']);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).now).toBe(before);
    expect((await http(manual.url, 'POST', '/v1/runs', idea('After a refused advance'))).status).toBe(201);
  });

  it('refuses to advance the whole clock of a sandbox on real time, and a --to without a run (exit 2)', async () => {
    const noRun = await ctl(['advance', '--to', 'end']);
    expect(noRun.exitCode).toBe(2);
    expect(noRun.stderr).toContain('--to moves one run');
    const bad = await ctl(['advance', '--by', 'soon']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--by must be a duration');
    // A run the sandbox does not have is said as such (exit 3), never as "not an orc sandbox".
    for (const args of [
      ['advance', 'run_nope', '--to', 'end'],
      ['trigger', 'run.failed', '--run', 'run_nope'],
    ]) {
      const missing = await ctl(args);
      expect(missing.exitCode, missing.stderr).toBe(3);
      expect(missing.stderr).toContain('run_nope');
      expect(missing.stderr).not.toContain('not an orc sandbox');
    }
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

  it('a trigger refused for its input makes no fixture run; an ended run makes no second terminal event (exit 3)', async () => {
    const count = async () => (await http(manual.url, 'GET', '/v1/runs?limit=100')).body.data.length;
    const before = await count();
    const badStage = await ctl(['trigger', 'run.failed', '--stage', '99_nope']);
    expect(badStage.exitCode).toBe(2);
    expect(badStage.stderr).toMatch(/stage/);
    expect(
      (await http(manual.url, 'POST', '/_sandbox/trigger', { kind: 'run.gate_pending', gate: 'nope' })).body.error
        .field,
    ).toBe('gate');
    expect(await count()).toBe(before);
    const accepted = (await http(manual.url, 'POST', '/_sandbox/trigger', { kind: 'run.accepted' })).body.run;
    const again = await ctl(['trigger', 'run.accepted', '--run', accepted.id]);
    expect(again.exitCode).toBe(3);
    expect(again.stderr).toMatch(/accepted/);
    const events = await readSse(`${manual.url}/v1/runs/${accepted.id}/events`, {}, (ms) =>
      ms.some((m) => m.event === 'run.accepted'),
    );
    expect(events.filter((m) => m.event === 'run.accepted')).toHaveLength(1);
  });

  it('every event kind can be triggered for real: on the stream, and delivered signed to webhooks', async () => {
    const hook = (await http(manual.url, 'POST', '/v1/webhooks', { url: receiverUrl, events: ['*'] })).body;
    // Every kind through the admin API; two of them through the built orc as well.
    const byOrc = ['run.accepted', 'run.gate_resolved'];
    const [viaOrc, ...viaHttp] = await Promise.all([
      Promise.all(byOrc.map((kind) => ctl(['trigger', kind, '--json']))),
      ...EVENT_KINDS.map((kind) => http(manual.url, 'POST', '/_sandbox/trigger', { kind })),
    ]);
    for (const [i, r] of viaOrc.entries()) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).event.type).toBe(byOrc[i]);
    }
    for (const [i, kind] of EVENT_KINDS.entries()) {
      const r = viaHttp[i]!;
      expect(r.status, `${kind}: ${JSON.stringify(r.body)}`).toBe(200);
      const { run, event } = r.body;
      expect(event.type, kind).toBe(kind);
      const history = (
        await readSse(`${manual.url}/v1/runs/${run.id}/events`, {}, (ms) => ms.some((m) => m.event === kind))
      ).map((m) => m.event);
      expect(history, kind).toContain(kind);
    }
    // The deliveries run on the sandbox's clock: moving it lets them go.
    await until(() => got.some((g) => JSON.parse(g.body).type === 'run.failed'), 'a delivery of run.failed');
    const failed = got.find((g) => JSON.parse(g.body).type === 'run.failed')!;
    const [t, v1] = failed.signature.split(',').map((p) => p.split('=')[1]);
    expect(createHmac('sha256', hook.secret).update(`${t}.${failed.body}`).digest('hex')).toBe(v1);
  }, 60_000);

  it('fault add --webhook fails a delivery as the sandbox answering for the receiver; the retry arrives, and the journal shows both', async () => {
    const hook = (
      await http(manual.url, 'POST', '/v1/webhooks', {
        url: receiverUrl.replace('/hook', '/faulted'),
        events: ['run.created'],
      })
    ).body;
    const added = await ctl(['fault', 'add', '--webhook', hook.id, '--times', '1', '--json']);
    expect(added.exitCode, added.stderr).toBe(0);
    const fault = JSON.parse(added.stdout);
    const seen = got.length;
    const { run } = (await http(manual.url, 'POST', '/_sandbox/trigger', { kind: 'run.created' })).body;
    const mine = () => got.slice(seen).filter((g) => g.body.includes(run.id));
    const entries = async () =>
      (
        (await http(manual.url, 'GET', '/_sandbox/logs')).body.data as Array<{
          type: string;
          webhook_id?: string;
          status: number | null;
          fault: string | null;
        }>
      ).filter((e) => e.type === 'delivery' && e.webhook_id === hook.id);
    // The retry waits on the sandbox's (manual) clock: move it until the receiver has the event.
    for (let i = 0; i < 200 && !(await entries()).some((e) => e.status === 200); i++)
      await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '1m' });
    const attempts = await entries();
    expect(attempts[0]).toMatchObject({ fault: fault.id });
    expect(attempts.at(-1)).toMatchObject({ status: 200, fault: null });
    expect(mine().length).toBeGreaterThanOrEqual(1);
    expect(
      JSON.parse((await ctl(['fault', 'list', '--json'])).stdout).find((f: { id: string }) => f.id === fault.id),
    ).toMatchObject({ applied: 1 });
    await http(manual.url, 'DELETE', `/v1/webhooks/${hook.id}`);
  });

  it('a failure at a chosen stage with a chosen error; a rejection with a reason; a scorecard that does not pass', async () => {
    const failed = await ctl(['trigger', 'run.failed', '--stage', '06_qa', '--error', 'qa_failed: crash on launch']);
    expect(failed.exitCode, failed.stderr).toBe(0);
    const id = failed.stdout.trim();
    const run = (await http(manual.url, 'GET', `/v1/runs/${id}`)).body;
    expect(run).toMatchObject({ status: 'failed', stage: '06_qa' });
    const ev = (await readSse(`${manual.url}/v1/runs/${id}/events`))
      .filter((m) => m.event === 'run.failed')
      .map((m) => JSON.parse(m.data!).data);
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
