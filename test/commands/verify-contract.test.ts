// `orc verify` in process against a sandbox on a manual clock: clean against it; each drift a proxy in front of
// it plants (a renamed field, a new status, a changed type, a dropped header, broken SSE framing) named with
// exit 3; a target that is not the service (an HTML page, 404 everywhere, nothing listening, a refused key):
// one line, exit 1 or 4.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../helpers/fault-proxy.js';
import { pickRun } from '../../src/commands/verify/reads.js';
import { CLOSE_MS, ENDED_QUIET_MS } from '../../src/commands/verify/stream.js';
import { FakeClock } from '../helpers/clock.js';
import { runOrc } from '../helpers/run.js';
import { handServer, json } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;

interface Report {
  target: string;
  checked: string[];
  divergences: Array<{ operation: string; path: string; expected: string; got: string }>;
  skipped: Array<{ operation: string; why: string }>;
  wrote: boolean;
}

let sb: TestSandbox;
let proxy: FaultProxy;
let receiver: ReturnType<typeof createServer>;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000, rateLimit: 1000 });
  receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const hook = await sb.client.webhooks.create({ url, events: ['*'] });
  await sb.client.runs.create({ mode: 'idea', idea: IDEA });
  const final = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run: final, to: 'end' });
  const waiting = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run: waiting, to: 'gate:brand' });
  await until(async () => !(await sb.client.webhooks.deliveries(hook.id).next()).done, 'a delivery');
  proxy = await startFaultProxy(sb.url);
});
afterAll(async () => {
  await proxy.close();
  receiver.close();
  await sb.stop();
});

const verify = (url: string, args: string[] = []) =>
  runOrc(['verify', ...args], { env: { ORC_BASE_URL: url, ORC_API_KEY: sb.apiKey } });

describe('orc verify, against the sandbox', () => {
  it('matches the contract: exit 0, no divergence, every operation checked, nothing skipped', async () => {
    const r = await verify(sb.url, ['--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.divergences).toEqual([]);
    expect(report.skipped).toEqual([]);
    expect(report).toMatchObject({ target: sb.url, wrote: false });
    expect(report.checked).toEqual([
      'GET /v1/runs',
      'GET /v1/runs (the next page)',
      'GET /v1/runs/{id} (no such run)',
      'GET /v1/webhooks/{id} (no such webhook)',
      'GET /v1/runs?limit=0',
      'GET /v1/runs?limit=101',
      'GET /v1/runs/{id}',
      'GET /v1/runs/{id}/gates',
      'GET /v1/runs/{id}/spec',
      'GET /v1/runs/{id}/artifacts',
      'GET /v1/runs/{id}/scorecard',
      'GET /v1/runs/{id}/gates (a run waiting at a gate)',
      'GET /v1/runs/{id}/spec (a run waiting at a gate)',
      'GET /v1/webhooks',
      'GET /v1/webhooks/{id}',
      'GET /v1/webhooks/{id}/deliveries',
      'SSE /v1/runs/{id}/events',
    ]);
    const text = await verify(sb.url);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toBe('17 checks: matches the contract');
  });
});

/** A plan rewriting the answers to requests whose path matches `route`. */
const rewriting =
  (route: RegExp, rewrite: (body: string) => string, headers?: Extract<Fault, { kind: 'rewrite' }>['headers']) =>
  (req: { url: string }): Fault =>
    route.test(req.url.split('?')[0]!)
      ? { kind: 'rewrite', rewrite, ...(headers ? { headers } : {}) }
      : { kind: 'pass' };

const RUN = /^\/v1\/runs\/run_[^/]+$/;
const drifts: Array<[string, (req: { url: string }) => Fault, Partial<Report['divergences'][number]>[]]> = [
  [
    'a field of a run renamed',
    rewriting(RUN, (b) => b.replace('"status":', '"state":')),
    [
      { operation: 'GET /v1/runs/{id}', path: 'status', got: 'nothing' },
      { operation: 'GET /v1/runs/{id}', path: 'state', got: 'present' },
    ],
  ],
  [
    'a status the contract does not know',
    rewriting(RUN, (b) => b.replace('"status":"accepted"', '"status":"launched"')),
    [{ operation: 'GET /v1/runs/{id}', path: 'status', expected: 'a status the contract knows', got: '"launched"' }],
  ],
  [
    'a number sent as a string',
    rewriting(/\/artifacts$/, (b) => b.replace(/"files":(\d+)/g, '"files":"$1"')),
    [{ operation: 'GET /v1/runs/{id}/artifacts', path: 'data[].files', expected: 'a number' }],
  ],
  [
    'X-Request-Id dropped',
    rewriting(
      /^\/v1\/webhooks$/,
      (b) => b,
      ({ 'x-request-id': _gone, ...rest }) => rest,
    ),
    [{ operation: 'GET /v1/webhooks', path: 'header X-Request-Id', got: 'nothing' }],
  ],
  [
    'SSE messages without id:',
    rewriting(/\/events$/, (b) => b.replace(/^id: .*\n/gm, '')),
    [{ operation: 'SSE /v1/runs/{id}/events', path: 'id:', got: 'none' }],
  ],
  [
    'SSE data that is not JSON',
    rewriting(/\/events$/, (b) => b.replace(/^data: \{/gm, 'data: {{')),
    [{ operation: 'SSE /v1/runs/{id}/events', path: 'data:', expected: 'one line of JSON (an Event)' }],
  ],
  [
    'a control character in a value (the value judged is sanitised: nothing else)',
    rewriting(RUN, (b) => b.replace('"status":"accepted"', '"status":"accepted\\u001b[2J"')),
    [
      {
        operation: 'GET /v1/runs/{id}',
        path: 'body',
        expected: 'text without control characters',
        got: '"accepted\\u001b[2J"',
      },
    ],
  ],
  [
    'a pending gate said "open" (read on a run waiting at a gate)',
    rewriting(/\/gates$/, (b) => b.replace('"state":"pending"', '"state":"open"')),
    [{ operation: 'GET /v1/runs/{id}/gates (a run waiting at a gate)', path: 'data[].state', got: '"open"' }],
  ],
];

describe('orc verify, against drift', () => {
  it.each(drifts)('names %s (operation and path), exit 3', async (_what, plan, expected) => {
    proxy.plan = plan;
    const r = await verify(proxy.url, ['--json']);
    expect(r.exitCode, r.stderr).toBe(3);
    const report = JSON.parse(r.stdout) as Report;
    for (const d of expected) expect(report.divergences).toContainEqual(expect.objectContaining(d));
    // the drift alone: nothing else diverges
    expect(report.divergences).toHaveLength(expected.length);
  });

  it('prints each divergence under its operation, and the count', async () => {
    proxy.plan = drifts[1]![1];
    const r = await verify(proxy.url);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe(
      [
        'GET /v1/runs/{id}',
        '  status: the contract says a status the contract knows; came "launched"',
        '17 checks, 1 divergence',
      ].join('\n'),
    );
  });
});

describe('orc verify, text with control characters', () => {
  it('names it escaped, and prints nothing raw', async () => {
    proxy.plan = rewriting(RUN, (b) => b.replace('"status":"accepted"', '"status":"accepted\\u001b]0;owned\\u0007"'));
    const r = await verify(proxy.url);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout).toContain(
      '  body: the contract says text without control characters; came "accepted\\u001b]0;owned\\u0007"',
    );
    expect(r.stdout + r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });
});

describe('orc verify, a route it may not read', () => {
  it('a 403 on one route: skipped with why, the rest checked, exit 0', async () => {
    const refused = JSON.stringify({ error: { type: 'permission_error', code: 'forbidden', message: 'not for you' } });
    proxy.plan = (req) =>
      /\/gates$/.test(req.url)
        ? {
            kind: 'answer',
            status: 403,
            headers: { 'x-request-id': 'req_403', 'content-type': 'application/json' },
            body: refused,
          }
        : { kind: 'pass' };
    const r = await verify(proxy.url, ['--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    const why = 'the key may not read it (403 forbidden)';
    expect(report.skipped).toEqual([
      { operation: 'GET /v1/runs/{id}/gates', why },
      { operation: 'GET /v1/runs/{id}/gates (a run waiting at a gate)', why },
    ]);
    expect(report.checked).not.toContain('GET /v1/runs/{id}/gates');
    expect(report.checked).toContain('SSE /v1/runs/{id}/events');
    expect(report.divergences).toEqual([]);
  });
});

describe('orc verify, a rate-limited target, and what it could not reach', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Fault => ({
    kind: 'answer',
    status,
    headers: { 'x-request-id': 'req_proxy', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const limitedBody = { error: { type: 'rate_limit_error', code: 'rate_limited', message: 'slow down' } };

  it('a 429 with Retry-After is waited out; one still limited after that is skipped "rate-limited", exit 0', async () => {
    let webhookLists = 0;
    proxy.plan = (req) => {
      const path = req.url.split('?')[0]!;
      if (/\/artifacts$/.test(path)) return answer(429, limitedBody, { 'retry-after': '1' });
      if (path === '/v1/webhooks' && ++webhookLists === 1) return answer(429, limitedBody, { 'retry-after': '1' });
      return { kind: 'pass' };
    };
    const r = await verify(proxy.url, ['--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.divergences).toEqual([]);
    expect(report.skipped).toEqual([
      { operation: 'GET /v1/runs/{id}/artifacts', why: expect.stringMatching(/^rate-limited \(429/) },
    ]);
    expect(report.checked).toContain('GET /v1/webhooks');
  });

  it('a Retry-After longer than orc waits out: the route is skipped "rate-limited" at once, verify goes on', async () => {
    proxy.plan = (req) =>
      /\/scorecard$/.test(req.url.split('?')[0]!)
        ? answer(429, limitedBody, { 'retry-after': '3600' })
        : { kind: 'pass' };
    const r = await verify(proxy.url, ['--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.divergences).toEqual([]);
    expect(report.skipped).toEqual([
      { operation: 'GET /v1/runs/{id}/scorecard', why: expect.stringMatching(/^rate-limited \(429/) },
    ]);
    expect(report.checked).toContain('GET /v1/webhooks');
  });

  it('a target that rate-limits the first request past waiting: one line, exit 1, not "not the service"', async () => {
    proxy.plan = (req) =>
      req.url.split('?')[0] === '/v1/runs' ? answer(429, limitedBody, { 'retry-after': '3600' }) : { kind: 'pass' };
    const r = await verify(proxy.url);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('is rate-limiting this key (HTTP 429 to GET /v1/runs, after waiting)');
    expect(r.stderr).not.toContain('not the Run Orchestration Service');
  });

  it('a webhooks list that failed: the webhook and its deliveries are skipped, saying why', async () => {
    proxy.plan = (req) =>
      req.url.split('?')[0] === '/v1/webhooks'
        ? answer(500, { error: { type: 'api_error', code: 'internal_error', message: 'boom' } })
        : { kind: 'pass' };
    const r = await verify(proxy.url, ['--json']);
    expect(r.exitCode, r.stderr).toBe(3);
    const report = JSON.parse(r.stdout) as Report;
    const why = 'the webhooks list could not be read: no webhook to read';
    expect(report.skipped).toEqual([
      { operation: 'GET /v1/webhooks/{id}', why },
      { operation: 'GET /v1/webhooks/{id}/deliveries', why },
    ]);
  });

  it('no run on the target: every per-run route is skipped ("no run to read"), not only two', async () => {
    proxy.plan = (req) =>
      req.method === 'GET' && req.url.split('?')[0] === '/v1/runs' && !/limit=(0|101)/.test(req.url)
        ? answer(200, { data: [], has_more: false, next_cursor: null })
        : { kind: 'pass' };
    const r = await verify(proxy.url, ['--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    const perRun = report.skipped.filter((s) => s.operation.includes('/v1/runs/{id}'));
    expect(perRun.map((s) => s.operation)).toEqual([
      'GET /v1/runs/{id}',
      'GET /v1/runs/{id}/gates',
      'GET /v1/runs/{id}/spec',
      'GET /v1/runs/{id}/artifacts',
      'GET /v1/runs/{id}/scorecard',
      'SSE /v1/runs/{id}/events',
    ]);
    for (const s of perRun) expect(s.why).toContain('no run');
  });
});

describe('orc verify, an event stream that does not end', () => {
  it('open after the terminal event: a divergence after a few seconds, and the read stops', async () => {
    // The accepted run's whole stream goes through, then the connection is held open.
    proxy.plan = (req) =>
      /\/events$/.test(req.url.split('?')[0]!) ? { kind: 'cut-body', afterBytes: 1e9 } : { kind: 'pass' };
    const clock = new FakeClock();
    const r = runOrc(['verify', '--json'], { env: { ORC_BASE_URL: proxy.url, ORC_API_KEY: sb.apiKey }, clock });
    await clock.nextTimer((ms) => ms === CLOSE_MS);
    clock.advance(CLOSE_MS);
    const { exitCode, stdout, stderr } = await r;
    expect(exitCode, stderr).toBe(3);
    expect((JSON.parse(stdout) as Report).divergences).toEqual([
      {
        operation: 'SSE /v1/runs/{id}/events',
        path: 'stream',
        expected: 'closed after the terminal event',
        got: 'still open after 3 s',
      },
    ]);
  });

  it("an ended run's stream without its terminal event: said, whether it closes or stays open (no hang)", async () => {
    const ended = { id: 'run_ended', status: 'accepted' };
    let hold = true;
    const fake = await handServer((req, res) => {
      const at = req.url!.split('?')[0]!;
      if (at === '/v1/runs') return json(res, 200, { data: [ended], has_more: false, next_cursor: null });
      if (!at.endsWith('/events'))
        return json(res, 404, { error: { type: 'not_found_error', code: 'x', message: 'x' } });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_sse' });
      const data = { id: 'evt_1', type: 'run.created', run_id: ended.id, created_at: '2026-01-01T00:00:00Z', data: {} };
      res.write(`id: 1\nevent: run.created\ndata: ${JSON.stringify(data)}\n\n`);
      if (!hold) res.end();
    });
    const streamDivergence = async (clock?: FakeClock) => {
      const r = runOrc(['verify', '--json'], {
        env: { ORC_BASE_URL: fake.url, ORC_API_KEY: sb.apiKey },
        ...(clock ? { clock } : {}),
      });
      if (clock) {
        await clock.nextTimer((ms) => ms === ENDED_QUIET_MS);
        clock.advance(ENDED_QUIET_MS);
      }
      const out = JSON.parse((await r).stdout) as Report;
      return out.divergences.find((d) => d.operation === 'SSE /v1/runs/{id}/events' && d.path === 'stream');
    };
    try {
      expect(await streamDivergence(new FakeClock())).toMatchObject({
        expected: 'the terminal event (the run has ended), then the close',
        got: 'no terminal event, and still open after 5 s of quiet',
      });
      hold = false;
      expect(await streamDivergence()).toMatchObject({ got: 'closed without a terminal event' });
    } finally {
      await fake.close();
    }
  });

  it('a run that keeps moving: its stream is read a bounded time, and said how long', async () => {
    let stream: ServerResponse | null = null;
    const asked: string[] = [];
    const moving = { id: 'run_moving', status: 'running' };
    const fake = await handServer((req, res) => {
      const at = req.url!.split('?')[0]!;
      if (at === '/v1/runs') return json(res, 200, { data: [moving], has_more: false, next_cursor: null });
      if (!at.endsWith('/events'))
        return json(res, 404, { error: { type: 'not_found_error', code: 'x', message: 'x' } });
      asked.push(at);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_sse' }).flushHeaders();
      stream = res;
    });
    try {
      const clock = new FakeClock();
      const r = runOrc(['verify'], {
        env: { ORC_BASE_URL: fake.url, ORC_API_KEY: sb.apiKey },
        clock,
        tty: { stderr: true },
      });
      await until(() => stream !== null, 'the stream asked for');
      const quiets = () => clock.requested.filter((ms) => ms === 2_000).length;
      let finished = false;
      void r.then(() => (finished = true));
      // Something new every 1.5 s of the clock: never quiet for 2 s.
      for (let n = 1; n <= 20 && !finished; n++) {
        const before = quiets();
        const data = { id: `evt_${n}`, type: 'log', run_id: moving.id, created_at: '2026-01-01T00:00:00Z', data: {} };
        stream!.write(`id: ${n}\nevent: log\ndata: ${JSON.stringify(data)}\n\n`);
        await until(() => quiets() > before || finished, 'the message read');
        clock.advance(1_500);
        await new Promise((done) => setImmediate(done));
      }
      expect(finished).toBe(true);
      const { stderr } = await r;
      expect(asked).toEqual(['/v1/runs/run_moving/events']);
      expect(stderr).toContain('read the stream of run run_moving, still moving, for 10 s');
    } finally {
      await fake.close();
    }
  });

  it('prefers a finished run, then one waiting at a gate, to a moving one', () => {
    const runs = [
      { id: 'run_moving', status: 'running' },
      { id: 'run_waiting', status: 'awaiting_approval' },
    ];
    expect(pickRun({ runs, listed: true })).toBe('run_waiting');
    expect(pickRun({ runs: [...runs, { id: 'run_failed', status: 'failed' }], listed: true })).toBe('run_failed');
  });
});

describe('orc verify, against what is not the service', () => {
  const answering = (status: number, type: string, body: string) => () =>
    ({ kind: 'answer', status, headers: { 'content-type': type }, body }) as Fault;

  it.each([
    ['an HTML page', answering(200, 'text/html', '<!doctype html><title>Welcome</title>'), /HTTP 200 \(text\/html\)/],
    ['404 everywhere', answering(404, 'text/plain', 'Not Found'), /HTTP 404 \(text\/plain\)/],
  ])('%s: one line, exit 1', async (_what, plan, said) => {
    proxy.plan = plan;
    const r = await verify(proxy.url);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toContain(`${proxy.url} is not the Run Orchestration Service`);
    expect(lines[0]).toMatch(said);
    expect(r.stderr).not.toContain('divergence');
  });

  it('a refused key: one line, exit 4', async () => {
    proxy.plan = () => ({ kind: 'pass' });
    const r = await runOrc(['verify'], { env: { ORC_BASE_URL: sb.url, ORC_API_KEY: 'sk_test_not_the_key_at_all' } });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('refused the key (HTTP 401');
  });

  it('a TLS error (https to a plain http server): one line, no divergence', async () => {
    const r = await verify(sb.url.replace('http:', 'https:'));
    expect([1, 4]).toContain(r.exitCode);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('nothing listening: exit 1', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await verify(url);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
  });
});

describe('orc verify --write', () => {
  // Time flows here (the sandbox retries a delivery answered 500 after ~20 ms), but no run moves on its own.
  let wsb: TestSandbox;
  let wproxy: FaultProxy;
  beforeAll(async () => {
    wsb = await startSandbox({ stageMs: 3_600_000, retryBaseMs: 20 });
    await wsb.client.runs.create({ mode: 'idea', idea: IDEA });
    wproxy = await startFaultProxy(wsb.url);
  });
  afterAll(async () => {
    await wproxy.close();
    await wsb.stop();
  });
  const writing = (url: string, args: string[] = [], key = wsb.apiKey) =>
    runOrc(['verify', '--write', ...args], { env: { ORC_BASE_URL: url, ORC_API_KEY: key } });
  const all = async <T>(items: AsyncIterable<T>) => {
    const out: T[] = [];
    for await (const item of items) out.push(item);
    return out;
  };

  it('is clean against the sandbox: exit 0, wrote, the write operations checked, nothing left moving', async () => {
    const before = (await all(wsb.client.runs.list())).map((r) => r.id);
    const r = await writing(wsb.url, ['--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report).toMatchObject({ target: wsb.url, wrote: true, divergences: [] });
    // What this sparse target lacks to read is skipped; nothing of --write is (the webhook checks included).
    expect(report.skipped.filter((s) => !s.operation.startsWith('GET '))).toEqual([]);
    expect(report.checked).toEqual(
      expect.arrayContaining([
        'GET /v1/runs',
        'SSE /v1/runs/{id}/events',
        'POST /v1/webhooks',
        'POST /v1/runs',
        'POST /v1/runs (replayed: the same Idempotency-Key and body)',
        'POST /v1/runs (the same Idempotency-Key, another body)',
        'POST /v1/runs/{id}/cancel',
        'WEBHOOK run.created',
        'WEBHOOK run.canceled',
        'DELETE /v1/webhooks/{id}',
        'GET /v1/webhooks/{id} (removed)',
      ]),
    );
    const made = (await all(wsb.client.runs.list())).filter((run) => !before.includes(run.id));
    expect(made.map((run) => run.status)).toEqual(['canceled']);
    expect(await all(wsb.client.webhooks.list())).toEqual([]);
  });

  it('gives each request the whole --timeout: reading the stream and waiting for deliveries outlast it', async () => {
    // The run here is still going: its stream is read until it has been quiet 2 s, longer than --timeout 2
    // leaves the requests after it when the command has one deadline.
    const r = await writing(wsb.url, ['--json', '--timeout', '2']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ wrote: true, divergences: [] });
    expect(await all(wsb.client.webhooks.list())).toEqual([]);
  });

  it('with a live key and --live but no --yes: exit 2 naming only --yes, before anything is sent', async () => {
    // A live key goes only to a live address: one that cannot answer shows nothing was sent (no network error).
    const r = await writing('https://orc-verify.invalid', ['--live'], 'sk_live_0123456789abcdef');
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('add --yes to mean it');
    expect(r.stderr).not.toContain('--live --yes');
    expect(r.stderr).not.toMatch(/orc-verify\.invalid (refused|is not)|ENOTFOUND|getaddrinfo/);
  });

  it('--yes without --write: a usage error (exit 2), nothing checked', async () => {
    const r = await runOrc(['verify', '--yes'], { env: { ORC_BASE_URL: wsb.url, ORC_API_KEY: wsb.apiKey } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--yes goes with --write');
  });

  it('names a replay answered 200 (the original 201 is the contract), exit 3, and undoes what it made', async () => {
    let creates = 0;
    wproxy.plan = (req) =>
      req.method === 'POST' && req.url === '/v1/runs' && ++creates === 2
        ? { kind: 'rewrite', rewrite: (b) => b, status: 200 }
        : { kind: 'pass' };
    const before = (await all(wsb.client.runs.list())).map((r) => r.id);
    const r = await writing(wproxy.url);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout).toContain(
      ['POST /v1/runs (replayed: the same Idempotency-Key and body)', '  status: the contract says 201; came 200'].join(
        '\n',
      ),
    );
    expect(r.stdout).toMatch(/\d+ checks, 1 divergence$/);
    const made = (await all(wsb.client.runs.list())).filter((run) => !before.includes(run.id));
    expect(made.map((run) => run.status)).toEqual(['canceled']);
    expect(await all(wsb.client.webhooks.list())).toEqual([]);
  });
});
