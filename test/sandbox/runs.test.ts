// Runs, gates and cancel over real HTTP: shapes, validation, lifecycle, magic words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Event, Gate, Run, pageOf } from '../../src/contract/schemas.js';
import { driveToEnd, quickClock, readSse, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ clock: quickClock() });
});
afterAll(() => sb.close());

const idea = (pitch: string, extra: object = {}) => ({
  mode: 'idea',
  idea: { pitch, audience: 'runners', monetization: 'freemium', ...extra },
});
const events = async (runId: string) =>
  (await readSse(`${sb.url}/v1/runs/${runId}/events`))
    .filter((m) => m.data)
    .map((m) => Event.parse(JSON.parse(m.data!)));

describe('POST /v1/runs', () => {
  it('creates an idea run, running at its first stage, with no gate and no app id', async () => {
    const res = await sb.call('POST', '/v1/runs', idea('A habit tracker for runners'));
    expect(res.status).toBe(201);
    const run = Run.parse(res.body);
    expect(run.id).toMatch(/^run_[\w-]+$/);
    expect(run).toMatchObject({
      mode: 'idea',
      status: 'running',
      stage: '01_intake',
      gate_pending: null,
      app_id: null,
    });
    expect(new Date(run.created_at).toISOString()).toBe(run.created_at);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('creates ship runs from a repository URL or an App Spec', async () => {
    for (const source of [
      'https://github.com/acme/trail-log.git',
      'git@github.com:acme/trail-log.git',
      { name: 'Trail Log', platforms: ['ios'] },
    ]) {
      const res = await sb.call('POST', '/v1/runs', { mode: 'ship', source });
      expect(res.status, res.text).toBe(201);
      expect(res.body.mode).toBe('ship');
      const spec = await sb.call('GET', `/v1/runs/${res.body.id}/spec`);
      expect(spec.body.name).toBe('Trail Log');
    }
  });

  it.each([
    [{}, 'missing_field', 'mode'],
    [{ mode: 'draft' }, 'invalid_value', 'mode'],
    [{ mode: 'idea' }, 'missing_field', 'idea'],
    [{ mode: 'idea', idea: { audience: 'a', monetization: 'free' } }, 'missing_field', 'idea.pitch'],
    [{ mode: 'idea', idea: { pitch: '  ', audience: 'a', monetization: 'free' } }, 'missing_field', 'idea.pitch'],
    [{ mode: 'idea', idea: { pitch: 'p', audience: 'a', monetization: 'gold' } }, 'invalid_value', 'idea.monetization'],
    [{ mode: 'ship' }, 'missing_field', 'source'],
    [{ mode: 'ship', source: 'ftp://example.com/repo' }, 'invalid_value', 'source'],
    [
      { mode: 'ship', source: 'https://github.com/a/b', idea: { pitch: 'p', audience: 'a', monetization: 'free' } },
      'invalid_value',
      'source',
    ],
    [{ mode: 'idea', source: 'https://github.com/a/b' }, 'invalid_value', 'source'],
  ])('refuses %j with 400 %s on %s', async (body, code, field) => {
    const res = await sb.call('POST', '/v1/runs', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, field });
    expect(res.body.error.message).toEqual(expect.any(String));
  });

  it('refuses a body that is not JSON, or not sent as JSON', async () => {
    const bad = await sb.call('POST', '/v1/runs', '{"mode":', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_json');
    const form = await sb.call('POST', '/v1/runs', 'mode=idea', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
  });

  it('refuses a body over 1 MiB', async () => {
    const res = await sb.call('POST', '/v1/runs', idea('x'.repeat(1_100_000)));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('body_too_large');
  });
});

describe('GET /v1/runs', () => {
  it('pages newest first with an opaque cursor until has_more is false', async () => {
    const local = await startTestSandbox({ stageMs: 60_000 });
    try {
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push((await local.createRun(`Run number ${i}`)).id);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await local.call('GET', `/v1/runs?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        const page = pageOf(Run).parse(res.body);
        seen.push(...page.data.map((r) => r.id));
        expect(page.has_more).toBe(page.next_cursor !== null);
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...ids].reverse());
      const all = await local.call('GET', '/v1/runs');
      expect(all.body.data).toHaveLength(5);
      expect(all.body.has_more).toBe(false);
    } finally {
      await local.close();
    }
  });

  it('filters by status', async () => {
    const run = await sb.createRun('To be canceled');
    await sb.call('POST', `/v1/runs/${run.id}/cancel`);
    const res = await sb.call('GET', '/v1/runs?status=canceled&limit=100');
    expect(res.body.data.map((r: any) => r.id)).toContain(run.id);
    expect(res.body.data.every((r: any) => r.status === 'canceled')).toBe(true);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['status=paused', 'status'],
    ['cursor=not-a-cursor', 'cursor'],
  ])('refuses %s with invalid_value on %s', async (query, field) => {
    const res = await sb.call('GET', `/v1/runs?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_value', field });
  });
});

describe('a run through its gates', () => {
  it('goes through every stage and gate to accepted, with an app id', async () => {
    const run = await sb.createRun('A journaling app for night-shift nurses');
    const seenGates: string[] = [];
    const end = await driveToEnd(sb, run.id, (g) => (seenGates.push(g), 'approve'));
    expect(seenGates).toEqual(['idea', 'brand', 'final']);
    expect(end.status).toBe('accepted');
    expect(end.app_id).toMatch(/^\d{10}$/);
    const evs = await events(run.id);
    const kinds = evs.filter((e) => e.type !== 'log' && e.type !== 'run.stage_changed').map((e) => e.type);
    expect(kinds).toEqual([
      'run.created',
      'run.gate_pending',
      'run.gate_resolved',
      'run.gate_pending',
      'run.gate_resolved',
      'run.scored',
      'run.gate_pending',
      'run.gate_resolved',
      'run.accepted',
    ]);
    const stages = [...new Set(evs.filter((e) => e.type === 'run.stage_changed').map((e) => e.data.stage))];
    expect(stages).toEqual([
      '01_intake',
      '02_concept',
      '03_brand',
      '04_design',
      '05_build',
      '06_qa',
      '07_scoring',
      '08_submission',
      '09_review',
    ]);
    const percents = evs
      .filter((e) => e.type === 'run.stage_changed' && e.data.stage === '05_build')
      .map((e) => e.data.percent);
    expect(percents).toEqual([0, 25, 50, 75, 100]);
    expect(evs.at(-1)!.data).toMatchObject({
      app_id: end.app_id,
      app_store_url: `https://apps.apple.com/app/id${end.app_id}`,
    });
    const created = evs[0]!;
    expect(created.data).toEqual({ mode: 'idea' });
  });

  it('stays on the stage before a pending gate, and lists the gates in order', async () => {
    const run = await sb.createRun('A recipe box');
    const waiting = await sb.waitFor(run.id, (r) => r.status === 'awaiting_approval');
    expect(waiting).toMatchObject({ gate_pending: 'idea', stage: '02_concept' });
    const gates = await sb.call('GET', `/v1/runs/${run.id}/gates`);
    expect(gates.body.data.map((g: any) => Gate.parse(g)).map((g: any) => [g.name, g.state])).toEqual([
      ['idea', 'pending'],
      ['brand', 'waiting'],
      ['final', 'waiting'],
    ]);
    const approved = await sb.call('POST', `/v1/runs/${run.id}/gates/idea:approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.gate).toMatchObject({ name: 'idea', state: 'approved', notes: null });
    expect(approved.body.gate.decided_at).toEqual(expect.any(String));
    expect(approved.body.run).toMatchObject({ status: 'running', gate_pending: null, stage: '03_brand' });
  });

  it('sends a run back on reject, keeps the notes, and opens the gate again', async () => {
    const run = await sb.createRun('A plant watering reminder');
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    const rejected = await sb.call('POST', `/v1/runs/${run.id}/gates/idea:reject`, {
      notes: 'Make it about succulents',
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body.gate).toMatchObject({ state: 'rejected', notes: 'Make it about succulents' });
    expect(rejected.body.run).toMatchObject({ status: 'running', stage: '02_concept', gate_pending: null });
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    const gates = await sb.call('GET', `/v1/runs/${run.id}/gates`);
    expect(gates.body.data[0]).toMatchObject({ name: 'idea', state: 'pending' });
    // final sends the run back to design
    await sb.call('POST', `/v1/runs/${run.id}/gates/idea:approve`);
    await sb.waitFor(run.id, (r) => r.gate_pending === 'brand');
    await sb.call('POST', `/v1/runs/${run.id}/gates/brand:approve`);
    await sb.waitFor(run.id, (r) => r.gate_pending === 'final');
    const back = await sb.call('POST', `/v1/runs/${run.id}/gates/final:reject`, { notes: 'Screenshots too dark' });
    expect(back.body.run.stage).toBe('04_design');
  });

  it('keeps every decision of a gate, oldest first with its notes, through reopening and cancel; events carry the notes', async () => {
    const run = await sb.createRun('A sourdough timer');
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    const rejected = await sb.call('POST', `/v1/runs/${run.id}/gates/idea:reject`, { notes: 'Too generic' });
    expect(rejected.body.gate.history).toEqual([
      { decision: 'rejected', notes: 'Too generic', decided_at: rejected.body.gate.decided_at },
    ]);
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    const reopened = (await sb.call('GET', `/v1/runs/${run.id}/gates`)).body.data[0];
    expect(reopened).toMatchObject({ state: 'pending', notes: null, history: [{ notes: 'Too generic' }] });
    const approved = await sb.call('POST', `/v1/runs/${run.id}/gates/idea:approve`, { notes: 'Better' });
    const both = [
      { decision: 'rejected', notes: 'Too generic', decided_at: rejected.body.gate.decided_at },
      { decision: 'approved', notes: 'Better', decided_at: approved.body.gate.decided_at },
    ];
    expect(approved.body.gate.history).toEqual(both);
    await sb.waitFor(run.id, (r) => r.gate_pending === 'brand');
    await sb.call('POST', `/v1/runs/${run.id}/gates/brand:reject`, { notes: 'Warmer' });
    await sb.waitFor(run.id, (r) => r.gate_pending === 'brand');
    await sb.call('POST', `/v1/runs/${run.id}/cancel`);
    const gates = (await sb.call('GET', `/v1/runs/${run.id}/gates`)).body.data.map((g: unknown) => Gate.parse(g));
    expect(gates[0].history).toEqual(both);
    expect(gates[1]).toMatchObject({ state: 'waiting', history: [{ decision: 'rejected', notes: 'Warmer' }] });
    expect(gates[2].history).toEqual([]);
    const resolved = (await events(run.id)).filter((e) => e.type === 'run.gate_resolved').map((e) => e.data);
    expect(resolved).toEqual([
      { gate: 'idea', decision: 'rejected', notes: 'Too generic' },
      { gate: 'idea', decision: 'approved', notes: 'Better' },
      { gate: 'brand', decision: 'rejected', notes: 'Warmer' },
    ]);
  });

  it('refuses decisions that do not apply', async () => {
    const run = await sb.createRun('A kite forecast');
    const early = await sb.call('POST', `/v1/runs/${run.id}/gates/brand:approve`);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ type: 'conflict_error', code: 'gate_not_pending' });
    expect(early.body.error.message).toContain('waiting');
    const unknown = await sb.call('POST', `/v1/runs/${run.id}/gates/launch:approve`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_gate', field: 'gate' });
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    for (const body of [undefined, {}, { notes: '' }, { notes: '   ' }]) {
      const res = await sb.call('POST', `/v1/runs/${run.id}/gates/idea:reject`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'missing_field', field: 'notes' });
    }
    const missing = await sb.call('POST', '/v1/runs/run_nope/gates/idea:approve');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('run_not_found');
  });

  it('#fail fails the run at 05_build with an error', async () => {
    const run = await sb.createRun('A meditation timer #fail');
    const end = await driveToEnd(sb, run.id);
    expect(end).toMatchObject({ status: 'failed', stage: '05_build' });
    const evs = await events(run.id);
    const failed = evs.at(-1)!;
    expect(failed.type).toBe('run.failed');
    expect(failed.data.stage).toBe('05_build');
    expect(failed.data.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(evs.some((e) => e.type === 'log' && e.data.level === 'error')).toBe(true);
  });

  it('#reject has app review reject the run with a reason', async () => {
    const run = await sb.createRun('A coupon wallet #reject');
    const end = await driveToEnd(sb, run.id);
    expect(end.status).toBe('rejected');
    expect(end.app_id).toBeNull();
    const last = (await events(run.id)).at(-1)!;
    expect(last.type).toBe('run.rejected');
    expect(last.data.reason).toMatch(/Guideline/);
  });

  it('app review rejects for what the spec says (beta wording, no privacy policy), citing the guideline', async () => {
    for (const [edit, guideline] of [
      [{ name: 'Chess Clock Beta' }, /^Guideline 2\.2 .*App Spec field name/],
      [{ privacy_policy_url: null }, /^Guideline 5\.1\.1\(i\) .*privacy_policy_url/],
    ] as const) {
      const run = await sb.createRun('A chess clock');
      await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
      const patched = await sb.call('PATCH', `/v1/runs/${run.id}/spec`, edit);
      expect(patched.status, patched.text).toBe(200);
      const end = await driveToEnd(sb, run.id);
      expect(end.status).toBe('rejected');
      const last = (await events(run.id)).at(-1)!;
      expect(last).toMatchObject({ type: 'run.rejected', data: { reason: expect.stringMatching(guideline) } });
    }
  });
});

describe('POST /v1/runs/{id}/cancel', () => {
  it('cancels an active run, answers a canceled one again, and refuses an ended one', async () => {
    const run = await sb.createRun('A tide table');
    const res = await sb.call('POST', `/v1/runs/${run.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: run.id, status: 'canceled', gate_pending: null });
    const again = await sb.call('POST', `/v1/runs/${run.id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('canceled');
    const last = (await events(run.id)).at(-1)!;
    expect(last.type).toBe('run.canceled');

    const done = await sb.createRun('A finished thing #fail');
    await driveToEnd(sb, done.id);
    const refused = await sb.call('POST', `/v1/runs/${done.id}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: 'conflict_error', code: 'run_not_active' });
  });

  it('cancels a run waiting at a gate', async () => {
    const run = await sb.createRun('A bird song identifier');
    await sb.waitFor(run.id, (r) => r.status === 'awaiting_approval');
    const res = await sb.call('POST', `/v1/runs/${run.id}/cancel`);
    expect(res.body).toMatchObject({ status: 'canceled', gate_pending: null });
    const approve = await sb.call('POST', `/v1/runs/${run.id}/gates/idea:approve`);
    expect(approve.status).toBe(409);
  });
});

describe('submission waits for the build', () => {
  it('a run approved at the final gate before its build is described waits without ticking, and moves on once it is', async () => {
    const clock = quickClock();
    const own = await startTestSandbox({ clock });
    // The descriptions are held until the test lets them through: the approval comes first, every time.
    const held: Array<() => void> = [];
    const describe = own.service.setArtifactMeta.bind(own.service);
    own.service.setArtifactMeta = (...args) => void held.push(() => describe(...args));
    try {
      const run = await own.createRun('A build described late');
      for (const gate of ['idea', 'brand', 'final']) {
        await own.waitFor(run.id, (r) => r.gate_pending === gate);
        expect((await own.call('POST', `/v1/runs/${run.id}/gates/${gate}:approve`)).status).toBe(200);
      }
      await until(() => held.length === 2, 'the screenshots and the ipa described (and held)', { pollMs: 20 });
      await clock.settled(); // the tick that finds the run waiting
      const asked = clock.requested.length;
      await clock.settled();
      await clock.settled();
      // Polled every tick, the wait was a busy loop on this clock, taking turns from the describing it waits for.
      expect(clock.requested.length).toBe(asked);
      const waiting = (await own.call('GET', `/v1/runs/${run.id}`)).body;
      expect(waiting).toMatchObject({ status: 'running', stage: '07_scoring', gate_pending: null });
      for (const release of held.splice(0)) release();
      const end = await own.waitFor(run.id, (r) => r.status !== 'running');
      expect(end).toMatchObject({ status: 'accepted', stage: '09_review' });
    } finally {
      await own.close();
    }
  });
});
