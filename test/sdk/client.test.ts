// The library's client (Orc) against a sandbox of orc-cli/testing, in process: every page walked, the event
// stream in order to its end, one run for a create retried, input refused before anything is sent, waits.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { InvalidIdError, ValidationError } from '../../src/api/errors.js';
import { ConfigError } from '../../src/exit/errors.js';
import { EVENT_KINDS } from '../../src/contract/events.js';
import { Orc, WaitTimeoutError, type RunCreate } from '../../src/sdk/client.js';
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

describe('what a log line shows of a client', () => {
  it('never the key whole nor the environment: JSON.stringify and util.inspect, however deep', async () => {
    const { inspect } = await import('node:util');
    const secretEnv = { HOME: '/home/someone', GITHUB_TOKEN: 'ghp_do_not_print_me' };
    const orc = new Orc({ apiKey: sb.apiKey, baseUrl: sb.url, env: secretEnv });
    const shown = [
      JSON.stringify(orc),
      JSON.stringify({ orc, admin: orc.sandbox }),
      inspect(orc, { depth: 10 }),
      inspect(orc.sandbox, { depth: 10, showHidden: true }),
      inspect(sb.client.runs, { depth: 10 }),
    ];
    for (const text of shown) {
      expect(text).not.toContain(sb.apiKey);
      expect(text).not.toContain('ghp_do_not_print_me');
    }
    expect(JSON.parse(shown[0]!)).toEqual({ baseUrl: sb.url, key: expect.stringMatching(/^sk_test_…/) });
    expect((await orc.target()).key).toMatch(/^sk_test_…\w{4}$/);
    await orc.close();
  });
});

describe('from JavaScript, the wrong types', () => {
  const refusedAs = async (call: () => unknown, Class: unknown, field?: string) => {
    const before = await journalEnd();
    const err = await (async () => call())().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Class as never);
    if (field) expect(err).toMatchObject({ field });
    expect(await journalEnd()).toBe(before);
  };
  const any = (v: unknown) => v as never;

  it('options of new Orc: a string, a negative retry count, a timeout that is not a number', async () => {
    await refusedAs(() => new Orc(any('sk_test_abc')), ValidationError);
    await refusedAs(() => new Orc({ maxRetries: -1 }), ValidationError, 'maxRetries');
    await refusedAs(() => new Orc({ timeout: any('x') }), ValidationError, 'timeout');
    await refusedAs(() => new Orc({ apiKey: any(5), baseUrl: sb.url }), ValidationError, 'apiKey');
    await refusedAs(() => new Orc({ apiKey: sb.apiKey, baseUrl: 'ftp://x' }), ConfigError);
  });

  it('an id that is not a string, a wait with a bad timeout or signal, notes that are not text', async () => {
    const run = await sb.client.runs.create(IDEA);
    await refusedAs(() => sb.client.runs.retrieve(any(123)), InvalidIdError);
    await refusedAs(() => sb.client.runs.retrieve(any(undefined)), InvalidIdError);
    await refusedAs(() => sb.client.runs.waitFor(run.id, { until: 'gate', timeout: -5 }), ValidationError, 'timeout');
    await refusedAs(
      () => sb.client.runs.waitFor(run.id, { until: 'gate', signal: any({}) }),
      ValidationError,
      'signal',
    );
    await refusedAs(() => sb.client.gates.approve(run.id, 'idea', { notes: any(5) }), ValidationError, 'notes');
    await refusedAs(() => sb.client.runs.create(IDEA, { idempotencyKey: any(5) }), ValidationError, 'idempotencyKey');
    await refusedAs(() => sb.client.webhooks.deliveries(any(undefined)).next(), InvalidIdError);
  });
});

describe('a target found from env and profiles', () => {
  it("names the library's options in its errors, never the CLI's flags", async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const env = { ORC_CONFIG_DIR: mkdtempSync(`${tmpdir()}/orc-sdk-`) };
    const missing = await new Orc({ profile: 'prod', env }).target().catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ConfigError);
    expect(String((missing as Error).message)).toContain('the option profile');
    const badUrl = await new Orc({ baseUrl: 'not a url', env }).target().catch((e: unknown) => e);
    expect(badUrl).toBeInstanceOf(ConfigError);
    expect((badUrl as Error).message).toMatch(/^baseUrl: not a URL/);
    const live = await new Orc({ env: { ...env, ORC_API_KEY: 'sk_live_abcdefgh12345678' } })
      .target()
      .catch((e: unknown) => e);
    expect(live).toBeInstanceOf(ConfigError);
    for (const e of [missing, badUrl, live]) {
      const text = `${(e as Error).message} ${(e as { hint?: string }).hint ?? ''}`;
      expect(text).not.toMatch(/--profile|--live|--base-url/);
    }
  });
});
