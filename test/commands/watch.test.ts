// `orc watch`, `orc run create --watch` and `orc gate …`, built, against a sandbox on port 0.
import { describe, expect, it } from 'vitest';
import { Event } from '../../src/contract/schemas.js';
import { FakeClock, ScaledClock } from '../helpers/clock.js';
import { until } from '../helpers/until.js';
import { runOrc as orc } from '../helpers/run.js';
import { startSandbox } from '../../src/sdk/testing.js';

/** Reconnect and poll waits pass at once on this clock; the 30 s silence rule and the idle timeout do not. */
const quickWaits = () => new FakeClock({ autoMs: 29_999 });
import { useProxiedSandbox } from '../helpers/proxied.js';
import { driveToEnd, readSse, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

// The pipeline runs on the sandbox's clock, whose waits under 9 s pass at once: a run moves as fast as it is watched.
const shared = useProxiedSandbox({ stageMs: 60, clock: new FakeClock({ autoMs: 9_000 }) });

const idea = (pitch: string) => ['--pitch', pitch, '--audience', 'runners', '--monetization', 'freemium'];
const ndjson = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => Event.parse(JSON.parse(l)));
/** The run's whole history as the service keeps it: what an uncut watch must print, line for line. */
const history = async (runId: string) =>
  (await readSse(`${shared.sb.url}/v1/runs/${runId}/events`)).filter((m) => m.data).map((m) => JSON.parse(m.data!));
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('run create --watch', () => {
  it('a full idea run with --approve idea,brand,final ends 0, NDJSON of every event', async () => {
    const r = await orc(
      ['run', 'create', ...idea('A habit tracker'), '--watch', '--approve', 'idea,brand,final', '--json'],
      { env: { ORC_BASE_URL: shared.sb.url } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    expect(events[0]!.type).toBe('run.created');
    expect(events.at(-1)!.type).toBe('run.accepted');
    expect(events.filter((e) => e.type === 'run.gate_resolved').map((e) => [e.data.gate, e.data.decision])).toEqual([
      ['idea', 'approved'],
      ['brand', 'approved'],
      ['final', 'approved'],
    ]);
    expect(events.some((e) => e.type === 'log')).toBe(true);
    expect(events).toEqual(await history(events[0]!.run_id));
    expect(r.stderr).toContain('approved gate final (--approve)');
  });

  it('#fail ends 5 and names 05_build', async () => {
    const r = await orc(['run', 'create', ...idea('A budget app #fail'), '--watch', '--approve', 'idea,brand,final'], {
      env: { ORC_BASE_URL: shared.sb.url },
    });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/failed at 05_build: build_failed: /);
    expect(r.stdout).toMatch(/^\S+Z run\.failed failed at 05_build/m);
  });

  it('--until-gate --json ends 6 with the gate event as its last line', async () => {
    const r = await orc(['run', 'create', ...idea('A gate stopper'), '--until-gate', '--json'], {
      env: { ORC_BASE_URL: shared.sb.url },
    });
    expect(r.exitCode).toBe(6);
    const last = ndjson(r.stdout).at(-1)!;
    expect(last).toMatchObject({ type: 'run.gate_pending', data: { gate: 'idea' } });
    expect(r.stderr).toContain(`orc gate approve ${last.run_id} idea`);
    const run = await shared.sb.call('GET', `/v1/runs/${last.run_id}`);
    expect(run.body.gate_pending).toBe('idea');
  });

  it('refuses bad watch flags before creating anything', async () => {
    const before = (await shared.sb.call('GET', '/v1/runs?limit=100')).body.data.length;
    for (const [args, flag] of [
      [['--approve', 'idea,launch'], '--approve'],
      [['--on-gate', 'maybe'], '--on-gate'],
      [['--on-gate', 'prompt'], '--on-gate prompt'],
    ] as const) {
      const r = await orc(['run', 'create', ...idea('Never made'), '--watch', ...args], {
        env: { ORC_BASE_URL: shared.sb.url },
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(flag);
    }
    expect((await shared.sb.call('GET', '/v1/runs?limit=100')).body.data.length).toBe(before);
  });
});

describe('orc watch', () => {
  it('prints one timestamped line per event when piped, with no escape codes, and waits for others to decide', async () => {
    const run = await shared.sb.createRun('A watched run');
    const watching = orc(['watch', run.id], { env: { ORC_BASE_URL: shared.sb.url } });
    await shared.sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    await until(() => watching.stderr().includes('gate idea awaits a decision; waiting'), 'orc to say it waits'); // waiting, not exiting
    let rejected = false;
    await driveToEnd(shared.sb, run.id, (gate) =>
      gate === 'brand' && !rejected ? ((rejected = true), { reject: 'Warmer\ncolours' }) : 'approve',
    );
    const r = await watching;
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => l.includes('run.gate_resolved gate brand'))).toEqual([
      expect.stringMatching(/ run\.gate_resolved gate brand rejected — “Warmer colours”$/),
      expect.stringMatching(/ run\.gate_resolved gate brand approved$/),
    ]);
    for (const l of lines) expect(l).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z (run\.\w+|log (info|warn|error)) /);
    expect(r.stdout + r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).toContain('gate idea awaits a decision; waiting for someone to decide');
    expect(lines.at(-1)).toContain('run.accepted accepted: app ');
  });

  it('started at a gate that came round again, stops at the round pending now, not at a replayed one', async () => {
    const run = await shared.sb.createRun('A gate decided twice before');
    let rounds = 0;
    const atFinal = async () => shared.sb.waitFor(run.id, (r) => r.gate_pending === 'final');
    for (const gate of ['idea', 'brand']) {
      await shared.sb.waitFor(run.id, (r) => r.gate_pending === gate);
      await shared.sb.call('POST', `/v1/runs/${run.id}/gates/${gate}:approve`);
    }
    for (; rounds < 2; rounds++) {
      await atFinal();
      await shared.sb.call('POST', `/v1/runs/${run.id}/gates/final:reject`, { notes: `round ${rounds + 1}` });
    }
    await atFinal();
    const r = await orc(['watch', run.id, '--on-gate', 'exit', '--json'], { env: { ORC_BASE_URL: shared.sb.url } });
    expect(r.exitCode, r.stderr).toBe(6);
    const events = ndjson(r.stdout);
    expect(events.filter((e) => e.type === 'run.gate_pending' && e.data.gate === 'final')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'run.scored')).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'run.gate_pending', data: { gate: 'final' } });
  });

  it('a finished run replays and exits by its outcome; an unknown run is exit 3', async () => {
    const done = await driveToEnd(shared.sb, (await shared.sb.createRun('Already rejected #reject')).id);
    const r = await orc(['watch', done.id, '--json'], { env: { ORC_BASE_URL: shared.sb.url } });
    expect(r.exitCode).toBe(5);
    expect(ndjson(r.stdout)).toEqual(await history(done.id));
    expect(r.stderr).toMatch(/rejected: Guideline/);
    const missing = await orc(['watch', 'run_nope'], { env: { ORC_BASE_URL: shared.sb.url } });
    expect(missing.exitCode).toBe(3);
    expect(missing.stderr).toContain('run_not_found');
  });

  it.each([
    ['cut mid-event', { stall: false, idle: '45' }],
    ['gone silent', { stall: true, idle: '6' }],
  ])(
    'through a proxy whose stream is %s: the same NDJSON as an uncut run, no gap, no duplicate',
    async (_name, { stall, idle }) => {
      // Every stream connection is cut after a different number of bytes, so the cuts fall mid-frame.
      let cuts = 0;
      shared.proxy.plan = (req) =>
        req.url.endsWith('/events') && cuts++ < 4
          ? { kind: 'cut-body', afterBytes: 700 + 1331 * cuts, stall }
          : { kind: 'pass' };
      // Gone silent: the idle timeout must fire on real silence, so that case runs on real time made 20 times
      // faster (6 s of silence is 0.3 s; a 2 s reconnect wait is a tenth).
      const r = await orc(
        ['run', 'create', ...idea('A flaky network'), '--watch', '--approve', 'idea,brand,final', '--json'],
        {
          env: { ORC_BASE_URL: shared.proxy.url, ORC_WATCH_IDLE_TIMEOUT: idle },
          clock: stall ? new ScaledClock(20) : quickWaits(),
        },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const events = ndjson(r.stdout);
      expect(events).toEqual(await history(events[0]!.run_id));
      expect(r.stderr.match(/reconnecting in/g)?.length).toBeGreaterThanOrEqual(4);
      if (stall) expect(r.stderr).toContain('nothing arrived for');
      const resumes = shared.proxy.seen
        .filter((s) => s.url.endsWith('/events'))
        .map((s) => Number(s.headers['last-event-id'] ?? 0));
      expect(resumes[0]).toBe(0);
      // Never from earlier than before (on a busy machine a stream may fall silent again before its next event,
      // and is resumed from the same id: that is no gap and no duplicate).
      for (let i = 1; i < resumes.length; i++) expect(resumes[i]).toBeGreaterThanOrEqual(resumes[i - 1]!);
      expect(resumes.at(-1)).toBeGreaterThan(0);
    },
    60_000,
  );

  it('falls back to polling, and says so, when a proxy strips the event stream', async () => {
    shared.proxy.plan = (req) =>
      req.url.endsWith('/events')
        ? { kind: 'answer', status: 200, headers: { 'content-type': 'text/html' }, body: '<html>buffered</html>' }
        : { kind: 'pass' };
    const clock = quickWaits();
    const r = await orc(
      ['run', 'create', ...idea('Behind a proxy'), '--watch', '--approve', 'idea,brand,final', '--json'],
      { env: { ORC_BASE_URL: shared.proxy.url }, clock },
    );
    expect(clock.requested).toContain(2000); // polled every 2 s, on the clock
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('instead of an event stream; following the run by polling instead');
    const events = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(events.every((e) => e.synthetic === true)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'run.accepted', data: { app_id: expect.stringMatching(/^\d+$/) } });
  }, 60_000);

  it('gives up with exit 1 when the stream cannot be had again', async () => {
    const run = await shared.sb.createRun('Unreachable');
    shared.proxy.plan = (req) =>
      req.url.endsWith('/events')
        ? {
            kind: 'answer',
            status: 503,
            headers: { 'content-type': 'application/json', 'retry-after': '0' },
            body: JSON.stringify({ error: { type: 'api_error', code: 'unavailable', message: 'down' } }),
          }
        : { kind: 'pass' };
    const r = await orc(['watch', run.id, '--json'], {
      env: { ORC_BASE_URL: shared.proxy.url, ORC_WATCH_RECONNECTS: '2' },
      clock: quickWaits(),
    });
    expect(r.exitCode).toBe(1);
    expect(shared.proxy.seen.filter((s) => s.url.endsWith('/events'))).toHaveLength(3);
    expect(r.stderr).toContain('lost the event stream');
    expect(r.stderr).toContain(`orc watch ${run.id}`);
  }, 30_000);
});

describe('orc watch <run> <run>', () => {
  it('--json: stdout is only the NDJSON events of every run; what orc says (an --approve) goes to stderr', async () => {
    const env = { ORC_BASE_URL: shared.sb.url };
    const ids: string[] = [];
    for (const pitch of ['One tracker', 'Two tracker']) {
      const made = await orc(['run', 'create', ...idea(pitch), '--json'], { env });
      ids.push(JSON.parse(made.stdout).id);
    }
    const r = await orc(['watch', ...ids, '--approve', 'idea,brand,final', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    expect(new Set(events.map((e) => e.run_id))).toEqual(new Set(ids));
    expect(events.filter((e) => e.type === 'run.accepted')).toHaveLength(2);
    // stderr too is JSON lines only: what orc says is a notice, never a line of prose.
    const said = r.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(said.some((n) => /approved gate idea \(--approve\)/.test(n.notice?.message ?? ''))).toBe(true);
  });
});

describe('orc gate', () => {
  it('lists, approves and rejects with notes from a flag or stdin', async () => {
    const local = await startTestSandbox({ stageMs: 60_000 });
    const env = { ORC_BASE_URL: local.url };
    try {
      const run = await local.createRun('Gates by hand');
      const listed = await orc(['gate', 'list', run.id, '--json'], { env });
      expect(JSON.parse(listed.stdout).map((g: any) => [g.name, g.state])).toEqual([
        ['idea', 'waiting'],
        ['brand', 'waiting'],
        ['final', 'waiting'],
      ]);
      const early = await orc(['gate', 'approve', run.id, 'idea'], { env });
      expect(early.exitCode).toBe(3);
      expect(early.stderr).toContain('gate idea of');
      expect(early.stderr).toContain('is not reached yet (waiting), not pending');
      // a run at its first gate, on a sandbox whose stages are quick
      const moving = await shared.sb.waitFor(
        (await shared.sb.createRun('Gates by hand, at a gate')).id,
        (r: any) => r.gate_pending === 'idea',
      );
      const at = { ORC_BASE_URL: shared.sb.url };
      const empty = await orc(['gate', 'reject', moving.id, 'idea', '--notes', '   '], { env: at });
      expect(empty.exitCode).toBe(2);
      const noNotes = await orc(['gate', 'reject', moving.id, 'idea'], { env: at });
      expect(noNotes.exitCode).toBe(2);
      expect(noNotes.stderr).toContain('--notes');
      expect((await shared.sb.call('GET', `/v1/runs/${moving.id}`)).body.gate_pending).toBe('idea'); // nothing was sent
      const rejected = await orc(['gate', 'reject', moving.id, 'idea', '--notes-file', '-', '--json'], {
        env: at,
        input: 'Make it about trail running\n',
      });
      expect(rejected.exitCode, rejected.stderr).toBe(0);
      expect(JSON.parse(rejected.stdout)).toMatchObject({
        gate: { name: 'idea', state: 'rejected', notes: 'Make it about trail running' },
        run: { stage: '02_concept' },
      });
      await shared.sb.waitFor(moving.id, (r: any) => r.gate_pending === 'idea');
      const approved = await orc(['gate', 'approve', moving.id, 'idea', '--notes', 'Better'], { env: at });
      expect(approved.stdout.trim()).toBe('gate idea approved');
      expect(approved.stderr).toContain('That was decision 2 at gate idea');
      const again = await orc(['gate', 'approve', moving.id, 'idea'], { env: at });
      expect(again.exitCode).toBe(3);
      expect(again.stderr).toMatch(/gate idea of \S+ is approved on \d{4}-\S+, not pending; notes: Better/);
      // the rejection and its notes are kept under the approval: a line each, piped, naming its gate
      const table = await orc(['gate', 'list', moving.id], { env: at });
      expect(table.stdout.split('\n').slice(0, 3)).toEqual([
        expect.stringMatching(/^idea\tapproved\t\d{4}-.*\tBetter$/),
        expect.stringMatching(/^idea\trejected\t\d{4}-.*\tMake it about trail running$/),
        expect.stringMatching(/^brand\t/),
      ]);
      const shown = await orc(['gate', 'list', moving.id], { env: at, tty: { stdout: true } });
      expect(shown.stdout.split('\n')[2]).toMatch(/^\s+rejected\s+\d+ \w+ ago\s+Make it about trail running\s*$/);
      const history = JSON.parse((await orc(['gate', 'list', moving.id, '--json'], { env: at })).stdout)[0].history;
      expect(history.map((h: any) => [h.decision, h.notes])).toEqual([
        ['rejected', 'Make it about trail running'],
        ['approved', 'Better'],
      ]);
      const unknown = await orc(['gate', 'approve', moving.id, 'launch'], { env: at });
      expect(unknown.exitCode).toBe(2);
      expect(unknown.stderr).toContain('unknown gate');
    } finally {
      await local.close();
    }
  });
});

// Issue 37: watch names each run beside its id (the App Spec's name), and a name changed with a decision (a spec
// change sent with it) shows once the gate is resolved. On a manual clock: the runs move only when told.
describe('runs by name in watch', () => {
  const sandbox = async () => {
    const sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${sb.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then((r) => r.json());
    const create = async () =>
      (
        await sb.client.runs.create({
          mode: 'idea',
          idea: { pitch: 'Tides', audience: 'sailors', monetization: 'free' },
        })
      ).id;
    return Object.assign(sb, { call, create, env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey } });
  };

  it('one run: its id and name above the view at a terminal (again when a decision renames it); piped, on stderr', async () => {
    await using sb = await sandbox();
    const id = await sb.create();
    await sb.advance({ run: id, to: 'gate:brand' });
    await sb.call('PATCH', `/v1/runs/${id}/spec`, { name: 'Tide Table' });
    const watching = orc(['watch', id, '--on-gate', 'wait'], { env: sb.env, tty: { stdout: true, stderr: true } });
    await until(() => new RegExp(`${id}\\S*  Tide Table`).test(watching.stdout()), 'the run by its name');
    await sb.call('PATCH', `/v1/runs/${id}/spec`, { name: 'Harbour Hours' });
    await sb.call('POST', `/v1/runs/${id}/gates/brand:approve`);
    await until(() => new RegExp(`${id}\\S*  Harbour Hours`).test(watching.stdout()), 'the new name');
    await sb.call('POST', `/v1/runs/${id}/cancel`);
    expect((await watching).exitCode).toBe(5);
    const piped = await orc(['watch', id], { env: sb.env });
    expect(piped.stderr).toContain(`orc: watching ${id} (Harbour Hours)`);
    expect(piped.stdout).not.toContain('Harbour Hours');
  });

  it('several runs at a terminal: each line names its run; a name changed with a decision is read again', async () => {
    await using sb = await sandbox();
    const { call, create } = sb;
    const gated = await create();
    const moving = await create();
    await sb.advance({ run: gated, to: 'gate:brand' });
    await call('PATCH', `/v1/runs/${gated}/spec`, { name: 'Tide Table' });
    await call('PATCH', `/v1/runs/${moving}/spec`, { name: 'Knot Book' });
    const watching = orc(['watch', gated, moving, '--on-gate', 'wait'], {
      env: sb.env,
      tty: { stdout: true, stderr: true },
      columns: 120,
    });
    await until(() => /Tide Table.*‖ gate brand pending/.test(watching.stdout()), 'the gated run by its name');
    await until(() => watching.stdout().includes(`${moving}  Knot Book `), 'the moving run by its name');
    await call('PATCH', `/v1/runs/${gated}/spec`, { name: 'Harbour Hours' });
    await call('POST', `/v1/runs/${gated}/gates/brand:approve`);
    await until(() => watching.stdout().includes(`${gated}  Harbour Hours`), 'the new name after the decision');
    for (const id of [gated, moving]) await call('POST', `/v1/runs/${id}/cancel`);
    expect((await watching).exitCode).toBe(5);
  });
});
