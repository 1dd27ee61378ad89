// orc-cli/testing's startSandbox as a user's suite uses it: a manual clock walked through the three gates with
// the client alone, sandboxes side by side, its bad input, faults, snapshots, and a stop that leaves nothing.
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { ClientClosedError, NotFoundError, ValidationError } from '../../src/api/errors.js';
import { WaitTimeoutError } from '../../src/sdk/client.js';

const IDEA = {
  mode: 'idea' as const,
  idea: { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' as const },
};

describe('startSandbox on a manual clock', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ clock: 'manual' });
  });
  afterAll(() => sb.stop());

  it('takes a run from create to accepted through its three gates with the client and advance alone', async () => {
    const { client } = sb;
    const run = await client.runs.create(IDEA);
    expect(run.status).toBe('running');
    for (const gate of ['idea', 'brand', 'final'] as const) {
      await sb.advance('1h');
      const waiting = await client.runs.waitFor(run.id, { until: 'gate' });
      expect(waiting).toMatchObject({ status: 'awaiting_approval', gate_pending: gate });
      const gates = await client.gates.list(run.id);
      expect(gates.find((g) => g.name === gate)?.state).toBe('pending');
      await client.gates.approve(run.id, gate);
    }
    await sb.advance('1h');
    const ended = await client.runs.waitFor(run.id, { until: 'end' });
    expect(ended.status).toBe('accepted');
    expect((await client.gates.list(run.id)).map((g) => g.state)).toEqual(['approved', 'approved', 'approved']);
  });

  it('moves nothing without advance: the run stays at its first stage, the clock where it was', async () => {
    const before = await sb.clock();
    const run = await sb.client.runs.create(IDEA);
    // A real-time wait for a gate gives up: the sandbox's time does not flow by itself.
    await expect(sb.client.runs.waitFor(run.id, { until: 'gate', timeout: 300 })).rejects.toBeInstanceOf(
      WaitTimeoutError,
    );
    const still = await sb.client.runs.retrieve(run.id);
    expect(still).toMatchObject({ status: 'running', stage: '01_intake', gate_pending: null });
    expect((await sb.clock()).now).toBe(before.now);
  });

  it('moves one run to a point ({ run, to }), approving the gates on its way', async () => {
    const run = await sb.client.runs.create(IDEA);
    const moved = await sb.advance({ run: run.id, to: 'gate:brand' });
    expect(moved.reached).toBe(true);
    expect(await sb.client.runs.retrieve(run.id)).toMatchObject({ gate_pending: 'brand' });
    await sb.advance({ run: run.id, to: 'end' });
    expect((await sb.client.runs.retrieve(run.id)).status).toBe('accepted');
  });

  it('triggers an event for real on a run', async () => {
    const run = await sb.client.runs.create(IDEA);
    const { event } = await sb.trigger('run.failed', { run: run.id, error: 'build_failed: the build broke' });
    expect(event).toMatchObject({ type: 'run.failed', run_id: run.id });
    expect((await sb.client.runs.retrieve(run.id)).status).toBe('failed');
  });
});

describe('startSandbox side by side', () => {
  it('keeps each sandbox to itself: a run of one is not found in the other', async () => {
    await using a = await startSandbox();
    await using b = await startSandbox();
    expect(a.url).not.toBe(b.url);
    const run = await a.client.runs.create(IDEA);
    const err = await b.client.runs.retrieve(run.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((await a.client.runs.retrieve(run.id)).id).toBe(run.id);
  });
});

describe('startSandbox, bad input', () => {
  it('rejects a taken port, naming the port', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as { port: number }).port;
    try {
      const err = await startSandbox({ port }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field: 'port', message: expect.stringContaining(`port ${port}`) });
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });

  it('rejects a bad snapshot, saying why: a missing file, not JSON, another format', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-testing-'));
    writeFileSync(join(dir, 'text.json'), 'not json');
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ format: 'something-else', runs: [] }));
    const cases: [string | Record<string, unknown>, RegExp][] = [
      [join(dir, 'none.json'), /none\.json: no such file/],
      [join(dir, 'text.json'), /text\.json: not a sandbox snapshot/],
      [join(dir, 'other.json'), /other\.json: not a sandbox snapshot \(its format/],
      [{ format: 'orc-sandbox-snapshot', schema: 2 }, /^import: a sandbox snapshot needs runs/],
    ];
    for (const [source, reason] of cases) {
      const err = await startSandbox({ import: source }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field: 'import', message: expect.stringMatching(reason) });
    }
  });

  it('rejects an option it does not know, from JavaScript, with the one meant', async () => {
    const err = await startSandbox({ clok: 'manual' } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ field: 'clok', message: expect.stringContaining('did you mean clock?') });
  });

  it('rejects an unknown clock, naming clock', async () => {
    const err = await startSandbox({ clock: 'fake' as 'manual' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ field: 'clock', message: expect.stringContaining("clock must be 'manual' or 'real'") });
  });
});

describe('startSandbox, snapshots', () => {
  it('import of an export() round-trips the runs (the object, and the file)', async () => {
    let exported: Record<string, unknown>;
    let ids: string[];
    {
      await using sb = await startSandbox({ clock: 'manual' });
      const one = await sb.client.runs.create(IDEA);
      const two = await sb.client.runs.create(IDEA);
      await sb.advance({ run: two.id, to: 'gate:idea' });
      ids = [one.id, two.id];
      exported = await sb.export();
    }
    const file = join(mkdtempSync(join(tmpdir(), 'orc-testing-')), 'snap.json');
    writeFileSync(file, JSON.stringify(exported));
    for (const source of [exported, file]) {
      await using again = await startSandbox({ clock: 'manual', import: source });
      const runs = [];
      for await (const run of again.client.runs.list()) runs.push(run);
      expect(runs.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(await again.client.runs.retrieve(ids[1]!)).toMatchObject({ gate_pending: 'idea' });
    }
  });
});

describe('startSandbox, faults', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ clock: 'manual' });
  });
  afterEach(() => sb.faults.clear());
  afterAll(() => sb.stop());

  it('a 503 once on a route: the client retries and succeeds', async () => {
    const run = await sb.client.runs.create(IDEA);
    const fault = await sb.faults.add({ route: 'GET /v1/runs/{run}', status: 503, times: 1 });
    expect((await sb.client.runs.retrieve(run.id)).id).toBe(run.id);
    const [after] = await sb.faults.list();
    expect(after).toMatchObject({ id: fault.id, applied: 1 });
    expect(await sb.faults.remove(fault.id)).toEqual({ id: fault.id, removed: true });
    expect(await sb.faults.list()).toEqual([]);
  });

  it('a 404 comes back as NotFoundError with status, code and request id', async () => {
    const err = await sb.client.runs.retrieve('run_doesnotexist').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'run_not_found', requestId: expect.stringMatching(/^req_/) });
  });

  it('reset empties the runs', async () => {
    const run = await sb.client.runs.create(IDEA);
    expect(await sb.reset()).toEqual({ reset: true });
    await expect(sb.client.runs.retrieve(run.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

/** The open handles a runner's check counts: servers, sockets, timers. */
function handles(): Record<string, number> {
  const counts: Record<string, number> = { TCPServerWrap: 0, TCPSocketWrap: 0, Timeout: 0 };
  for (const kind of process.getActiveResourcesInfo()) if (kind in counts) counts[kind]!++;
  return counts;
}

describe('startSandbox, stop', () => {
  it('leaves no server, socket or timer behind, and may be called twice', async () => {
    const before = handles();
    const sb = await startSandbox();
    const run = await sb.client.runs.create(IDEA);
    await sb.client.runs.retrieve(run.id);
    expect(handles().TCPServerWrap).toBeGreaterThan(before.TCPServerWrap!);
    await sb.stop();
    await sb.stop();
    const after = handles();
    for (const kind of Object.keys(before)) expect(after[kind], kind).toBeLessThanOrEqual(before[kind]!);
  });

  it('ends what its client has in flight (a wait, a stream) with ClientClosedError, and leaves no timer', async () => {
    const before = handles();
    const sb = await startSandbox({ clock: 'manual' });
    const run = await sb.client.runs.create(IDEA);
    const waiting = sb.client.runs.waitFor(run.id, { until: 'end' }).catch((e: unknown) => e);
    let first: () => void = () => {};
    const reading = new Promise<void>((resolve) => (first = resolve));
    const streaming = (async () => {
      for await (const e of sb.client.runs.events(run.id)) {
        expect(e.run_id).toBe(run.id);
        first();
      }
    })().catch((e: unknown) => e);
    await reading; // the stream is open: its first event came
    await sb.stop();
    expect(await waiting).toBeInstanceOf(ClientClosedError);
    const streamEnd = await streaming;
    expect(streamEnd === undefined || streamEnd instanceof ClientClosedError).toBe(true);
    await expect(sb.client.runs.retrieve(run.id)).rejects.toBeInstanceOf(ClientClosedError);
    const after = handles();
    for (const kind of Object.keys(after)) expect(after[kind], kind).toBeLessThanOrEqual(before[kind] ?? 0);
  });
});
