// Cross-cutting HTTP behaviour: auth, request ids, rate limits, idempotency keys, faults, restart with state kept.
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY, readSse, startTestSandbox } from '../helpers/sandbox.js';
import { FakeClock } from '../helpers/clock.js';
import { ManualClock } from '../../src/sandbox/manual-clock.js';
import { until } from '../helpers/until.js';

const HOUR = 3_600_000;
const body = (pitch: string) => ({ mode: 'idea', idea: { pitch, audience: 'cyclists', monetization: 'ads' } });

describe('authentication', () => {
  it.each([
    [{}, 'missing_api_key'],
    [{ authorization: 'Basic abc' }, 'invalid_api_key'],
    [{ authorization: 'Bearer sk_test_somebody_else' }, 'invalid_api_key'],
    [{ authorization: 'Bearer sk_live_1234567890abcdef' }, 'live_key_in_sandbox'],
  ])('refuses %j with 401 %s and WWW-Authenticate: Bearer, never echoing the key whole', async (headers, code) => {
    const sb = await startTestSandbox();
    try {
      const res = await fetch(`${sb.url}/v1/runs`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      const text = await res.text();
      expect(JSON.parse(text).error).toMatchObject({ type: 'authentication_error', code });
      expect(text).not.toContain('1234567890abcdef');
      expect(text).not.toContain('sk_test_somebody_else');
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    } finally {
      await sb.close();
    }
  });

  it('refuses a Host that is not its own (DNS rebinding) even with the right key; its own names are served', async () => {
    const sb = await startTestSandbox();
    try {
      const { port } = new URL(sb.url);
      const get = (host: string, path: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = request(
            { host: '127.0.0.1', port: Number(port), path, headers: { host, authorization: `Bearer ${KEY}` } },
            (res) => {
              let body = '';
              res.on('data', (c) => (body += c));
              res.on('end', () => resolve({ status: res.statusCode!, body }));
            },
          );
          req.on('error', reject);
          req.end();
        });
      for (const [host, path] of [
        [`attacker.example:${port}`, '/_sandbox/export'],
        [`attacker.example:${port}`, '/v1/runs'],
        ['attacker.example', '/v1/runs'],
      ]) {
        const r = await get(host!, path!);
        expect(r.status, `${host} ${path}`).toBe(403);
        expect(JSON.parse(r.body).error.code).toBe('cross_origin_refused');
      }
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`])
        expect((await get(host, '/v1/runs')).status, host).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('answers an unknown route with 404 route_not_found and a request id on every answer', async () => {
    const sb = await startTestSandbox();
    try {
      const res = await sb.call('GET', '/v1/nothing/here');
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'route_not_found' });
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) ids.add((await sb.call('GET', '/v1/runs')).headers.get('x-request-id')!);
      expect(ids.size).toBe(5);
    } finally {
      await sb.close();
    }
  });

  it('sends the request id and the rate-limit headers on an event stream too', async () => {
    const sb = await startTestSandbox({ rateLimit: 50 });
    try {
      const id = (await sb.createRun()).id;
      const ctl = new AbortController();
      const res = await fetch(`${sb.url}/v1/runs/${id}/events`, {
        headers: { authorization: `Bearer ${KEY}` },
        signal: ctl.signal,
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('50');
      ctl.abort();
    } finally {
      await sb.close();
    }
  });
});

describe('rate limiting', () => {
  it('counts down X-RateLimit-Remaining and answers 429 with Retry-After past the limit', async () => {
    const clock = new FakeClock();
    const sb = await startTestSandbox({ rateLimit: 5, clock });
    try {
      clock.advance(1000 - (clock.now() % 1000)); // the start of a fresh window
      const answers = [];
      for (let i = 0; i < 7; i++) answers.push(await sb.call('GET', '/v1/runs'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(answers.map((a) => Number(a.headers.get('x-ratelimit-remaining')))).toEqual([4, 3, 2, 1, 0, 0, 0]);
      const limited = answers[5]!;
      expect(limited.headers.get('x-ratelimit-limit')).toBe('5');
      expect(Number(limited.headers.get('x-ratelimit-reset'))).toBe(Math.floor(clock.now() / 1000) + 1);
      expect(Number(limited.headers.get('retry-after'))).toBe(1);
      expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
      clock.advance(Number(limited.headers.get('retry-after')) * 1000);
      expect((await sb.call('GET', '/v1/runs')).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, with no second run', async () => {
    const sb = await startTestSandbox({ stageMs: 60_000 });
    try {
      const first = await sb.call('POST', '/v1/runs', body('A cycling route planner'), { 'idempotency-key': 'k-1' });
      const again = await sb.call('POST', '/v1/runs', body('A cycling route planner'), { 'idempotency-key': 'k-1' });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect((await sb.call('GET', '/v1/runs')).body.data).toHaveLength(1);
      // the same body with its keys in another order is the same request
      const reordered = await sb.call(
        'POST',
        '/v1/runs',
        { idea: { monetization: 'ads', audience: 'cyclists', pitch: 'A cycling route planner' }, mode: 'idea' },
        { 'idempotency-key': 'k-1' },
      );
      expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await sb.close();
    }
  });

  it('refuses the same key with another body: 422 idempotency_key_reused', async () => {
    const sb = await startTestSandbox();
    try {
      await sb.call('POST', '/v1/runs', body('One'), { 'idempotency-key': 'k-2' });
      const res = await sb.call('POST', '/v1/runs', body('Two'), { 'idempotency-key': 'k-2' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
      expect((await sb.call('GET', '/v1/runs')).body.data).toHaveLength(1);
    } finally {
      await sb.close();
    }
  });

  it('answers 409 idempotency_key_in_use while the first request is still in flight', async () => {
    const arrived: string[] = [];
    const sb = await startTestSandbox({ onRequest: (method, path) => arrived.push(`${method} ${path}`) });
    try {
      const payload = JSON.stringify(body('Slow upload'));
      const url = new URL(`${sb.url}/v1/runs`);
      let finishFirst = () => {};
      // The first request sends its headers, then holds its body back.
      const first = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          url,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${KEY}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(payload),
              'idempotency-key': 'k-3',
            },
          },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          },
        );
        req.on('error', reject);
        req.write(payload.slice(0, 10));
        finishFirst = () => req.end(payload.slice(10));
      });
      await until(() => arrived.includes('POST /v1/runs'), 'the first request to arrive');
      const second = await sb.call('POST', '/v1/runs', body('Slow upload'), { 'idempotency-key': 'k-3' });
      finishFirst();
      expect(second.status).toBe(409);
      expect(second.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
      expect((await first).status).toBe(201);
      const third = await sb.call('POST', '/v1/runs', body('Slow upload'), { 'idempotency-key': 'k-3' });
      expect(third.headers.get('idempotent-replayed')).toBe('true');
      expect(JSON.parse(third.text).id).toBe(JSON.parse((await first).text).id);
    } finally {
      await sb.close();
    }
  });

  it('creates exactly one run from 30 concurrent requests with one key', async () => {
    const sb = await startTestSandbox();
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => sb.call('POST', '/v1/runs', body('A stampede'), { 'idempotency-key': 'k-4' })),
      );
      expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
      const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
      expect(ids.size).toBe(1);
      expect((await sb.call('GET', '/v1/runs')).body.data).toHaveLength(1);
    } finally {
      await sb.close();
    }
  });

  it('does not keep a refused request: the same key works once the body is fixed', async () => {
    const sb = await startTestSandbox();
    try {
      const bad = await sb.call('POST', '/v1/runs', { mode: 'idea' }, { 'idempotency-key': 'k-5' });
      expect(bad.status).toBe(400);
      const good = await sb.call('POST', '/v1/runs', body('Fixed'), { 'idempotency-key': 'k-5' });
      expect(good.status).toBe(201);
    } finally {
      await sb.close();
    }
  });
});

describe('faults', () => {
  it('answers 500 internal_error when its database is gone, and 503 unavailable while shutting down', async () => {
    const arrived: string[] = [];
    const sb = await startTestSandbox({ onRequest: (method, path) => arrived.push(`${method} ${path}`) });
    const run = await sb.createRun('Before the fault');
    sb.store.close();
    const broken = await sb.call('POST', '/v1/runs', body('After the fault'));
    expect(broken.status).toBe(500);
    expect(broken.body.error).toMatchObject({ type: 'api_error', code: 'internal_error' });
    expect((await sb.call('GET', `/v1/runs/${run.id}`)).status).toBe(200); // reads are served from memory
    // A write whose body is still arriving when shutdown begins is refused whole with 503.
    const payload = JSON.stringify(body('Mid-shutdown'));
    let finish = () => {};
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        new URL(`${sb.url}/v1/runs`),
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${KEY}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.write(payload.slice(0, 5));
      finish = () => req.end(payload.slice(5));
    });
    const posts = arrived.length;
    await until(() => arrived.length > posts, 'the half-sent request to arrive');
    const closing = sb.close();
    finish();
    const during = await answer;
    expect(during.status).toBe(503);
    expect(JSON.parse(during.text).error).toMatchObject({ type: 'api_error', code: 'unavailable' });
    await closing;
  });
});

describe('restart', () => {
  it('keeps runs, events, gates and webhooks in its database across a restart, and moving runs move on', async () => {
    const dataPath = join(mkdtempSync(join(tmpdir(), 'orc-sb-')), 'sandbox.db');
    // Both sandboxes on a manual clock with 1 h stages: a run moves only when the test steps it, so what is read
    // after the restart is certain however busy the machine (on 40 ms stages the rejected run could be back at
    // its gate, pending again, before the restart).
    const a = await startTestSandbox({ dataPath, stageMs: HOUR, clock: new ManualClock(Date.now()) });
    const atGate = await a.createRun('Persisted at a gate');
    expect((await a.call('POST', '/_sandbox/clock/advance', { run: atGate.id, to: 'gate:idea' })).status).toBe(200);
    await a.call('POST', `/v1/runs/${atGate.id}/gates/idea:reject`, { notes: 'Sharper pitch' });
    const moving = await a.createRun('Still moving');
    const hook = (await a.call('POST', '/v1/webhooks', { url: 'https://example.com/h', events: ['*'] })).body;
    const eventsBefore = a.store.eventsOf(atGate.id).map((e) => e.json);
    const idem = await a.call('POST', '/v1/runs', body('Keyed'), { 'idempotency-key': 'k-restart' });
    await a.close();

    const b = await startTestSandbox({ dataPath, stageMs: HOUR, clock: new ManualClock(Date.now()) });
    try {
      const gates = (await b.call('GET', `/v1/runs/${atGate.id}/gates`)).body.data;
      expect(gates[0]).toMatchObject({ name: 'idea', state: 'rejected' });
      expect((await b.call('GET', `/v1/runs/${atGate.id}`)).body).toMatchObject({
        status: 'running',
        stage: '02_concept',
      });
      expect((await b.call('GET', `/v1/webhooks/${hook.id}`)).body.url).toBe('https://example.com/h');
      const history = await readSse(
        `${b.url}/v1/runs/${atGate.id}/events`,
        {},
        (ms) => ms.filter((m) => m.data).length >= eventsBefore.length,
      );
      expect(
        history
          .filter((m) => m.data)
          .slice(0, eventsBefore.length)
          .map((m) => m.data),
      ).toEqual(eventsBefore);
      // The moving run moves on with the restarted sandbox's clock: two stages on it waits at its first gate (3 h:
      // the idempotency key, kept 24 h, still holds).
      expect((await b.call('GET', `/v1/runs/${moving.id}`)).body).toMatchObject({
        status: 'running',
        stage: '01_intake',
      });
      expect((await b.call('POST', '/_sandbox/clock/advance', { by: '3h' })).status).toBe(200);
      await b.waitFor(moving.id, (r) => r.gate_pending === 'idea');
      const replay = await b.call('POST', '/v1/runs', body('Keyed'), { 'idempotency-key': 'k-restart' });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(idem.body.id);
      const ids = (await b.call('GET', '/v1/runs')).body.data.map((r: any) => r.id);
      expect(ids).toEqual([idem.body.id, moving.id, atGate.id]);
      // a new run gets a fresh id, never one from before
      const fresh = await b.createRun('After restart');
      expect(ids).not.toContain(fresh.id);
    } finally {
      await b.close();
    }
  });
});

describe('idempotency records', () => {
  it('are swept once past 24 hours: the key is free again for another request; a younger one still holds', async () => {
    const dataPath = join(mkdtempSync(join(tmpdir(), 'orc-sb-')), 'sandbox.db');
    const sb = await startTestSandbox({ dataPath });
    try {
      await sb.call('POST', '/v1/runs', body('Old'), { 'idempotency-key': 'old-key' });
      await sb.call('POST', '/v1/runs', body('New'), { 'idempotency-key': 'new-key' });
      // A second connection ages the first record by 25 hours, as a day's wait would.
      const { DatabaseSync } = await import('node:sqlite');
      const other = new DatabaseSync(dataPath);
      other.prepare("UPDATE idempotency SET created_at = created_at - 90000000 WHERE scope LIKE '%old-key'").run();
      other.close();
      sb.store.sweepIdempotency(Date.now() - 24 * 60 * 60 * 1000);
      const check = new DatabaseSync(dataPath);
      const scopes = check
        .prepare('SELECT scope FROM idempotency')
        .all()
        .map((r) => String(r.scope).split('\n')[1]);
      check.close();
      expect(scopes).toEqual(['new-key']); // gone from disk by the sweep, not only refused on its next use
      expect((await sb.call('POST', '/v1/runs', body('Another'), { 'idempotency-key': 'old-key' })).status).toBe(201);
      expect(
        (await sb.call('POST', '/v1/runs', body('Another'), { 'idempotency-key': 'new-key' })).body.error.code,
      ).toBe('idempotency_key_reused');
    } finally {
      await sb.close();
    }
  });
});

describe('connections', () => {
  it('closes a connection that sends no headers, or only part of them, within headersTimeout; a normal client is served meanwhile', async () => {
    const { connect } = await import('node:net');
    const sb = await startTestSandbox({ headersTimeoutMs: 300 });
    try {
      const { port } = new URL(sb.url);
      const opened = Array.from({ length: 40 }, (_, i) => {
        const s = connect(Number(port), '127.0.0.1');
        s.on('error', () => {});
        if (i % 2) s.write('GET /v1/runs HTTP/1.1\r\nHost: x\r\n'); // half-sent: the headers never end
        return new Promise<void>((r) => s.once('close', () => r()));
      });
      expect((await sb.call('GET', '/v1/runs')).status).toBe(200);
      await Promise.all(opened); // each was closed by the sandbox (the test would time out otherwise)
    } finally {
      await sb.close();
    }
  });

  it('bounds the event streams open at once: past the limit, 503 with Retry-After; one closing frees a place', async () => {
    const sb = await startTestSandbox({ maxEventStreams: 2, stageMs: 60_000 });
    try {
      const run = await sb.createRun('Streams');
      const stream = () =>
        new Promise<{ status: number; close: () => void }>((resolve, reject) => {
          const req = request(
            `${sb.url}/v1/runs/${run.id}/events`,
            { headers: { authorization: `Bearer ${KEY}` } },
            (res) => resolve({ status: res.statusCode!, close: () => req.destroy() }),
          );
          req.on('error', reject).end();
        });
      const [first, second] = [await stream(), await stream()];
      expect([first.status, second.status]).toEqual([200, 200]);
      const third = await sb.call('GET', `/v1/runs/${run.id}/events`);
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('5');
      expect(third.body.error.code).toBe('unavailable');
      first.close();
      await until(() => sb.openStreams() < 2, 'the closed stream to free its place');
      const fourth = await stream();
      expect(fourth.status).toBe(200);
      fourth.close();
      second.close();
    } finally {
      await sb.close();
    }
  });
});

describe('requests that fail to parse (RFC 9112)', () => {
  /** Writes `raw` on a fresh connection and resolves with everything answered once the server closes it. */
  async function exchange(url: string, raw: string): Promise<string> {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (c) => (answer += c.toString('latin1')));
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => {});
    socket.write(raw.replaceAll('Host: 127.0.0.1\r\n', `Host: 127.0.0.1:${port}\r\n`));
    await closed;
    return answer;
  }
  const auth = `Authorization: Bearer ${KEY}\r\n`;
  const cases: Array<[string, string, number, string]> = [
    ['an unknown method', `FOO /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 501, 'method_not_implemented'],
    ['a lowercase method', `get /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 501, 'method_not_implemented'],
    [
      'a duplicate Content-Length',
      `POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      400,
      'malformed_request',
    ],
    [
      'Content-Length with chunked',
      `POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      400,
      'malformed_request',
    ],
    [
      'a bad chunk size',
      `POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      400,
      'malformed_request',
    ],
    ['bare LF', `GET /v1/runs HTTP/1.1\nHost: 127.0.0.1\n\n`, 400, 'malformed_request'],
    ['a space before the colon', `GET /v1/runs HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n`, 400, 'malformed_request'],
    ['a folded header', `GET /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n 2\r\n\r\n`, 400, 'malformed_request'],
    [
      'a 20 KB header',
      `GET /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
  ];
  it.each(cases)('answers %s with its status and the error envelope, then closes', async (_name, raw, status, code) => {
    const sb = await startTestSandbox();
    try {
      const answer = await exchange(sb.url, raw);
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(answer.toLowerCase()).toContain('connection: close');
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
        error: { code: string; type: string };
      };
      expect(body.error.code).toBe(code);
    } finally {
      await sb.close();
    }
  });

  it('serves an absolute-form request line like the origin form (RFC 9112 3.2.2)', async () => {
    const sb = await startTestSandbox();
    try {
      const { host } = new URL(sb.url);
      const answer = await exchange(
        sb.url,
        `GET ${sb.url}/v1/runs?limit=1 HTTP/1.1\r\nHost: ${host}\r\n${auth}Connection: close\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toContain('"data"');
    } finally {
      await sb.close();
    }
  });

  it('answers 501 for a method Node parses but no route knows', async () => {
    const sb = await startTestSandbox();
    try {
      const r = await sb.call('PROPFIND', '/v1/runs');
      expect(r.status).toBe(501);
      expect(r.body.error.code).toBe('method_not_implemented');
    } finally {
      await sb.close();
    }
  });
});
