// The one exchange: retries and their waits, the silence rule, the deadline, the size cap, the key rules
// and redirects, against servers of the test's own, on a clock the test moves.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import { exitCodeOf } from '../../src/exit/errors.js';
import { Run } from '../../src/contract/schemas.js';
import { FakeClock } from '../helpers/clock.js';
import { runOrc } from '../helpers/run.js';
import { handServer, json, type HandServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const KEY = 'sk_test_HttpUnitKey1234';
const RUN = {
  id: 'run_1',
  mode: 'idea',
  status: 'running',
  stage: '01_intake',
  gate_pending: null,
  app_id: null,
  created_at: '2026-11-22T10:00:00.000Z',
};
const busy = { error: { type: 'rate_limit_error', code: 'rate_limited', message: 'slow down' } };
let server: HandServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
const client = (clock: FakeClock, extra: Record<string, unknown> = {}) =>
  new HttpClient({ baseUrl: server!.url, apiKey: KEY, userAgent: 'test', clock, random: () => 0, ...extra });

describe('retries', () => {
  it.each([['0'], ['-5'], ['Wed, 21 Oct 2015 07:28:00 GMT']])(
    'Retry-After %j waits the normal backoff, never no time at all',
    async (retryAfter) => {
      server = await handServer((_req, res, n) =>
        n === 1 ? json(res, 429, busy, { 'retry-after': retryAfter }) : json(res, 200, RUN),
      );
      const clock = new FakeClock({ autoMs: 10_000 });
      const run = await client(clock).json({ method: 'GET', target: '/v1/runs/run_1', schema: Run });
      expect(run.id).toBe('run_1');
      expect(server.seen).toHaveLength(2);
      const waits = clock.requested.filter((ms) => ms < 30_000);
      expect(waits).toEqual([500]); // the first backoff step (random 0: no jitter taken off)
    },
  );

  it('waits out a Retry-After within the cap, on the clock', async () => {
    server = await handServer((_req, res, n) =>
      n === 1 ? json(res, 429, busy, { 'retry-after': '7' }) : json(res, 200, RUN),
    );
    const clock = new FakeClock();
    const pending = client(clock).json({ method: 'GET', target: '/v1/runs/run_1', schema: Run });
    expect(await clock.nextTimer((ms) => ms === 7000)).toBe(7000);
    expect(server.seen).toHaveLength(1);
    clock.advance(7000);
    expect((await pending).id).toBe('run_1');
    expect(server.seen).toHaveLength(2);
  });

  it('an attempt with no answer for 30 s is cut and retried', async () => {
    server = await handServer((_req, res, n) => (n === 1 ? undefined : json(res, 200, RUN))); // the first never answers
    const clock = new FakeClock({ autoMs: 10_000 });
    const notices: string[] = [];
    const pending = client(clock, { notice: (l: string) => notices.push(l) }).json({
      method: 'GET',
      target: '/v1/runs/run_1',
      schema: Run,
    });
    await clock.nextTimer((ms) => ms === 30_000);
    await until(() => server!.seen.length === 1, 'the request to reach the server');
    expect(server.seen).toHaveLength(1);
    clock.advance(30_000);
    expect((await pending).id).toBe('run_1');
    expect(server.seen).toHaveLength(2);
    expect(notices[0]).toContain('no answer within 30 s; retrying');
  });
});

describe('limits', () => {
  it('--timeout: the command gives up after N s with exit 1 naming the host', async () => {
    server = await handServer(() => undefined); // never answers
    const clock = new FakeClock();
    const r = runOrc(['run', 'get', 'run_1', '--timeout', '5'], { env: { ORC_BASE_URL: server.url }, clock });
    await clock.nextTimer((ms) => ms === 5000);
    clock.advance(5000);
    const done = await r;
    expect(done.exitCode).toBe(1);
    expect(done.stderr).toContain(`no answer from ${new URL(server.url).host} within 5 s`);
    expect(done.stderr).toContain('--timeout');
  });

  it('refuses --timeout that is not a number of seconds, naming the flag', async () => {
    const r = await runOrc(['run', 'list', '--timeout', 'soon']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--timeout must be a number of seconds');
  });

  it('stops reading a JSON answer past 64 MiB and says so', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let written = 0;
    server = await handServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const write = () => {
        while (written < 80 && res.write(chunk)) written++;
        if (written < 80) res.once('drain', () => (written++, write()));
        else res.end();
      };
      res.on('error', () => {});
      write();
    });
    const err = await client(new FakeClock())
      .json({ method: 'GET', target: '/v1/runs/run_1', schema: Run })
      .catch((e: Error) => e);
    expect((err as Error).message).toContain('larger than 64 MiB; orc stopped reading it');
  });
});

describe('the key and where it goes', () => {
  it('a signed URL is fetched without the key, from a byte on with Range', async () => {
    server = await handServer((req, res) => {
      res.writeHead(206, { 'content-type': 'application/octet-stream' });
      res.end(`from ${req.headers.range}`);
    });
    const a = await client(new FakeClock()).download(`${server.url}/files/x?sig=abc`, { from: 10 });
    let text = '';
    for await (const c of a.body) text += c.toString();
    expect(a.status).toBe(206);
    expect(text).toBe('from bytes=10-');
    expect(server.seen[0]!.headers.authorization).toBeUndefined();
  });

  it('is never sent to another origin, even as an absolute URL', async () => {
    server = await handServer((_req, res) => json(res, 200, RUN));
    const c = client(new FakeClock());
    const err = await c
      .json({ method: 'GET', target: 'http://localhost:1/v1/runs', schema: Run })
      .catch((e: Error) => e);
    expect((err as Error).message).toContain('refusing to send your key to http://localhost:1');
    expect(server.seen).toHaveLength(0);
  });

  it('a redirect to another host: the key does not follow, and the hint never ends in undefined', async () => {
    const other = await handServer((_req, res) => json(res, 200, RUN));
    try {
      server = await handServer((_req, res) => {
        res.writeHead(302, { location: `${other.url.replace('127.0.0.1', 'localhost')}/v1/runs/run_1` }); // no request id
        res.end();
      });
      const err = (await client(new FakeClock())
        .json({ method: 'GET', target: '/v1/runs/run_1', schema: Run })
        .catch((e: unknown) => e)) as { message: string; hint?: string };
      expect(err.message).toContain('redirected to http://localhost');
      expect(exitCodeOf(err)).toBe(4); // what the CLI makes of it
      expect(err.hint).not.toContain('undefined');
      expect(other.seen).toHaveLength(0);
      // Without the key (a signed file), a redirect elsewhere is followed.
      const file = await client(new FakeClock()).download(`${server.url}/files/x`);
      expect(file.status).toBe(200);
      expect(other.seen[0]!.headers.authorization).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('raw(): any status comes back as it came', async () => {
    server = await handServer((_req, res) =>
      json(res, 404, { error: { type: 'not_found_error', code: 'run_not_found', message: 'no' } }),
    );
    const r = await client(new FakeClock()).raw({ method: 'GET', target: '/v1/runs/nope' });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text).error.code).toBe('run_not_found');
    expect(r.requestId).toBe('req_hand');
    expect(server.seen).toHaveLength(1);
  });
});

describe('a refused connection', () => {
  const closedPort = async () => {
    const { createServer } = await import('node:net');
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    await new Promise((r) => s.close(r));
    return `http://127.0.0.1:${port}`;
  };

  it('to a remote service is tried briefly: three attempts, well under 2 s of waiting in all', async () => {
    // An address of this machine that is not loopback stands for a remote service.
    const { networkInterfaces } = await import('node:os');
    const ip = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (!ip) return;
    const clock = new FakeClock({ autoMs: 10_000 });
    const c = new HttpClient({
      baseUrl: (await closedPort()).replace('127.0.0.1', ip).replace('http:', 'https:'),
      apiKey: 'sk_live_remote12345678',
      userAgent: 'test',
      clock,
      random: () => 0,
    });
    const err = await c.json({ method: 'GET', target: '/v1/runs/run_1', schema: Run }).catch((e: unknown) => e);
    expect(exitCodeOf(err)).toBe(1);
    expect((err as Error).message).toMatch(/connection refused/);
    const waits = clock.requested.filter((ms) => ms < 30_000);
    expect(waits).toEqual([200, 400]);
  });

  it('to this machine (a sandbox not running) is said at once, with the command that starts one there: no retry', async () => {
    const clock = new FakeClock({ autoMs: 10_000 });
    const base = await closedPort();
    const c = new HttpClient({ baseUrl: base, apiKey: KEY, userAgent: 'test', clock, random: () => 0 });
    const err = await c.json({ method: 'GET', target: '/v1/runs/run_1', schema: Run }).catch((e: unknown) => e);
    expect(exitCodeOf(err)).toBe(1);
    expect((err as Error).message).toBe(`cannot reach ${base}: nothing listens there (connection refused)`);
    expect((err as { hint?: string }).hint).toContain(`orc sandbox start --port ${new URL(base).port}`);
    expect(clock.requested.filter((ms) => ms < 30_000)).toEqual([]);
  });
});
