// The library's client (Orc) against a sandbox of orc-cli/testing, in process: every page walked, the event
// stream in order to its end, one run for a create retried, input refused before anything is sent, waits.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { InvalidIdError, ValidationError } from '../../src/api/errors.js';
import { EVENT_KINDS } from '../../src/contract/events.js';
import { WaitTimeoutError, type RunCreate } from '../../src/sdk/client.js';
import type { Event } from '../../src/contract/schemas.js';

const IDEA = {
  mode: 'idea' as const,
  idea: { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' as const },
};

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual' });
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.stop());

/** The journal's last entry: what the sandbox has answered so far (its own reads are not journaled). */
const journalEnd = async () => (await sb.client.sandbox.logs()).last;

describe('runs.list', () => {
  it('walks every page, newest first, each run once', async () => {
    await sb.reset();
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await sb.client.runs.create(IDEA)).id);
    const seen = [];
    for await (const run of sb.client.runs.list({ limit: 2 })) seen.push(run.id);
    expect(seen).toEqual([...made].reverse());
    const pages = (await sb.client.sandbox.logs()).data.filter(
      (e) => e.type === 'request' && e.method === 'GET' && e.path === '/v1/runs',
    );
    expect(pages.length).toBe(3);
  });
});

describe('runs.events', () => {
  it('yields the run’s typed events in order as they happen, and ends after its last', async () => {
    const run = await sb.client.runs.create(IDEA);
    const events: Event[] = [];
    const read = (async () => {
      for await (const e of sb.client.runs.events(run.id)) events.push(e);
    })();
    await sb.advance({ run: run.id, to: 'end' });
    await read;
    const kinds = events.map((e) => e.type).filter((t) => t !== 'log');
    expect(kinds[0]).toBe('run.created');
    expect(kinds.at(-1)).toBe('run.accepted');
    expect(kinds.filter((k) => k === 'run.gate_pending')).toHaveLength(3);
    for (const e of events) expect(e.run_id).toBe(run.id);
    for (const k of kinds) expect([...EVENT_KINDS, 'log']).toContain(k);
    const times = events.map((e) => Date.parse(e.created_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });
});

describe('runs.create', () => {
  it('retried after a 500 makes one run: the same Idempotency-Key on both attempts', async () => {
    await sb.reset();
    const from = await journalEnd();
    await sb.faults.add({ route: 'POST /v1/runs', status: 500, times: 1 });
    const run = await sb.client.runs.create(IDEA);
    const posts = (await sb.client.sandbox.logs(from)).data.filter(
      (e) => e.type === 'request' && e.method === 'POST' && e.path === '/v1/runs',
    );
    expect(posts.map((p) => p.status)).toEqual([500, 201]);
    const keys = posts.map((p) => (p.type === 'request' ? p.idempotency_key : null));
    expect(keys[0]).toMatch(/\S/);
    expect(keys[1]).toBe(keys[0]);
    const all = [];
    for await (const r of sb.client.runs.list()) all.push(r.id);
    expect(all).toEqual([run.id]);
  });
});

describe('input checked before anything is sent', () => {
  let runId: string;
  beforeAll(async () => {
    runId = (await sb.client.runs.create(IDEA)).id;
    await sb.advance({ run: runId, to: 'gate:idea' });
  });

  const refusals: [string, () => Promise<unknown>, string][] = [
    ['a misspelled gate', () => sb.client.gates.approve(runId, 'brnad' as 'brand'), 'gate'],
    [
      'a missing pitch',
      () => sb.client.runs.create({ mode: 'idea', idea: { ...IDEA.idea, pitch: undefined } } as unknown as RunCreate),
      'idea.pitch',
    ],
    ['an unknown artifact kind', () => sb.client.artifacts.retrieve(runId, 'apk' as 'ipa'), 'kind'],
    ['a reject without notes', () => sb.client.gates.reject(runId, 'idea', {} as { notes: string }), 'notes'],
    ['a reject with blank notes', () => sb.client.gates.reject(runId, 'idea', { notes: '  ' }), 'notes'],
    ['a patch that is not an object', () => sb.client.spec.update(runId, [] as never), 'patch'],
    ['an unknown status for a page', () => sb.client.runs.page({ status: 'done' as 'accepted' }), 'status'],
    ['a wait for nothing', () => sb.client.runs.waitFor(runId, { until: 'forever' as 'end' }), 'until'],
    ['a page larger than 100', () => sb.client.runs.page({ limit: 500 }), 'limit'],
    ['a webhook to ftp://', () => sb.client.webhooks.create({ url: 'ftp://example.com/h', events: ['*'] }), 'url'],
    [
      'a webhook over plain http to another host',
      () => sb.client.webhooks.create({ url: 'http://example.com/h', events: ['*'] }),
      'url',
    ],
  ];
  for (const [what, call, field] of refusals)
    it(`${what}: rejects with ValidationError naming ${field}, and no request reached the sandbox`, async () => {
      const before = await journalEnd();
      // A promise that rejects, as every method's does: never an exception thrown at the call.
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field });
      expect(await journalEnd()).toBe(before);
    });

  it('an unknown status for list: ValidationError naming status, nothing sent', async () => {
    const before = await journalEnd();
    const walk = async () => {
      for await (const run of sb.client.runs.list({ status: 'done' as 'accepted' })) expect(run).toBeUndefined();
    };
    await expect(walk()).rejects.toMatchObject({ name: 'ValidationError', field: 'status' });
    expect(await journalEnd()).toBe(before);
  });

  it('an id that cannot be one (a slash, empty): InvalidIdError from a promise, nothing sent', async () => {
    const before = await journalEnd();
    const { client } = sb;
    const calls = [
      () => client.runs.retrieve('../x'),
      () => client.runs.cancel(''),
      () => client.runs.scorecard('a/b'),
      () => client.gates.list('../x'),
      () => client.gates.approve('../x', 'idea'),
      () => client.spec.retrieve('a/b'),
      () => client.artifacts.list('a/b'),
      () => client.webhooks.retrieve('a/b'),
      () => client.webhooks.remove(''),
      () => client.webhooks.redeliver('wh_1', 'a/b'),
    ];
    for (const call of calls)
      expect(
        await call().then(
          () => null,
          (e: unknown) => e,
        ),
        String(call),
      ).toBeInstanceOf(InvalidIdError);
    expect(await journalEnd()).toBe(before);
  });
});

describe('runs.waitFor', () => {
  it('with a timeout rejects with WaitTimeoutError when the run does not get there', async () => {
    const run = await sb.client.runs.create(IDEA);
    const err = await sb.client.runs.waitFor(run.id, { until: 'gate', timeout: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toContain(run.id);
  });

  it('with an aborted signal rejects with its reason, sooner or later', async () => {
    const run = await sb.client.runs.create(IDEA);
    const reason = new Error('the test gave up');
    await expect(sb.client.runs.waitFor(run.id, { until: 'end', signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    const later = new AbortController();
    const waiting = sb.client.runs.waitFor(run.id, { until: 'end', signal: later.signal });
    await sb.advance({ run: run.id, to: '02_concept' });
    later.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });

  it('resolves with the run once it waits at a gate', async () => {
    const run = await sb.client.runs.create(IDEA);
    const waiting = sb.client.runs.waitFor(run.id, { until: 'gate' });
    await sb.advance('1h');
    expect(await waiting).toMatchObject({ id: run.id, status: 'awaiting_approval', gate_pending: 'idea' });
  });
});
