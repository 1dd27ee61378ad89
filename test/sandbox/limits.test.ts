// Bounded input (CONTRACT.md, limits on input), over real HTTP: slow bodies, deep nesting, keys that
// reach for prototypes, clients that vanish, and methods a route does not have.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../src/lib/merge-patch.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox;
const logged: string[] = [];
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 60_000, bodyTimeoutMs: 300, log: (l) => logged.push(l) });
});
afterAll(() => sb.close());

const idea = { mode: 'idea', idea: { pitch: 'Bounded', audience: 'testers', monetization: 'free' } };

/** A request written by hand: headers, then only `partial` of a body of `length` bytes. */
function rawRequest(path: string, headers: Record<string, string>, length: number, partial: string) {
  const { port } = new URL(sb.url);
  const socket = connect(Number(port), '127.0.0.1');
  let answer = '';
  socket.on('data', (c) => (answer += c.toString()));
  const closed = new Promise<void>((r) => socket.on('close', () => r()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${Object.entries(
      headers,
    )
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n${partial}`,
  );
  return { socket, answer: () => answer, closed };
}

describe('limits on input', () => {
  it('a body that does not arrive within the time allowed: 408, and its Idempotency-Key is free again', async () => {
    const body = JSON.stringify(idea);
    const slow = rawRequest('/v1/runs', { 'Idempotency-Key': 'slow-one' }, body.length, body.slice(0, 10));
    await until(() => slow.answer().includes('HTTP/1.1'), 'an answer to the slow request');
    expect(slow.answer()).toMatch(/^HTTP\/1\.1 408/);
    expect(slow.answer()).toContain('"code":"request_timeout"');
    slow.socket.destroy();
    const again = await sb.call('POST', '/v1/runs', idea, { 'idempotency-key': 'slow-one' });
    expect(again.status).toBe(201);
  });

  it('JSON nested deeper than 64 levels: 400 invalid_json saying so, even 5,000 deep', async () => {
    for (const depth of [65, 5000]) {
      const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const r = await sb.call('POST', '/v1/runs', deep);
      expect(r.status, `depth ${depth}`).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_json' });
      expect(r.body.error.message).toContain('deeper than 64 levels');
    }
    const ok = await sb.call('POST', '/v1/runs', { ...idea, extra: JSON.parse(`${'['.repeat(60)}${']'.repeat(60)}`) });
    expect(ok.status).not.toBe(500);
  });

  it.each([
    [
      'POST',
      '/v1/runs',
      `{"mode":"idea","idea":{"pitch":"p","audience":"a","monetization":"free","__proto__":{"x":1}}}`,
      'idea.__proto__',
    ],
    ['PATCH', 'spec', `{"brand":{"constructor":{"prototype":{"polluted":true}}}}`, 'brand.constructor'],
    ['PATCH', 'spec', `{"__proto__":{"name":null}}`, '__proto__'],
  ])('%s with a prototype key: 400 invalid_value naming the path %s', async (method, where, text, field) => {
    const run = await sb.createRun('Prototype keys');
    const path = where === 'spec' ? `/v1/runs/${run.id}/spec` : where;
    const r = await sb.call(
      method,
      path,
      text,
      method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {},
    );
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_value', field });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await sb.call('GET', `/v1/runs/${run.id}/spec`)).body.name).toBeTruthy();
  });

  it('merge patches work on own keys only', () => {
    const out = applyMergePatch({ name: 'A' }, JSON.parse('{"constructor":{"a":1},"__proto__":{"b":2}}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out).sort()).toEqual(['__proto__', 'constructor', 'name']);
    expect(out.constructor).toEqual({ a: 1 });
  });

  it('a client that drops its request mid-body is one log line, not a stack', async () => {
    const before = logged.length;
    const gone = rawRequest('/v1/runs', {}, 1000, '{"mode":');
    await new Promise((r) => gone.socket.once('connect', r));
    gone.socket.destroy();
    await gone.closed;
    await until(() => logged.length > before, 'the log line');
    expect(logged.at(-1)).toBe('sandbox: a client dropped its request (POST /v1/runs)');
  });

  it('a route with the wrong method: 405 method_not_allowed with Allow', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/v1/runs', 'GET, POST'],
      ['PUT', '/v1/runs/run_x', 'GET'],
      ['GET', '/v1/runs/run_x/cancel', 'POST'],
    ] as const) {
      const r = await sb.call(method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.body.error.code).toBe('method_not_allowed');
      expect(r.headers.get('allow')).toBe(allow);
    }
  });

  it('one router for the API and the admin API: 405 with Allow, and a bad percent-escape is 400 naming the path', async () => {
    const put = await sb.call('PUT', '/_sandbox/clock');
    expect(put.status).toBe(405);
    expect(put.body.error.code).toBe('method_not_allowed');
    expect(put.headers.get('allow')).toBe('GET');
    for (const path of ['/_sandbox/faults/%zz', '/v1/webhooks/%zz']) {
      const r = await sb.call('DELETE', path);
      expect(r.status, path).toBe(400);
      expect(r.body.error.code).toBe('invalid_value');
      expect(r.body.error.message).toContain(path);
    }
  });
});

describe('faults take only what can apply', () => {
  const add = (fault: unknown) => sb.call('POST', '/_sandbox/faults', fault);
  it.each([
    [{ route: 'GET /v1/runs', status: '500' }, 'status'],
    [{ route: 'GET /v1/runs', latency_ms: '30' }, 'latency_ms'],
    [{ route: 'GET /v1/runs', status: 500, note: 'x'.repeat(1000) }, 'note'],
    [{ route: 'GET /v1/runs', latency_ms: 30 * 86_400_000 }, 'latency_ms'],
    [{ route: 'POST /_sandbox/reset', status: 500 }, 'route'],
    [{ route: 'GET /v1/nope', status: 500 }, 'route'],
    [{ route: 'GET /healthz', status: 500 }, 'route'],
    [{ route: 'GET /console/x', status: 500 }, 'route'],
    [{ route: 'GET /files/abc', status: 500 }, 'route'],
  ])('%j is refused naming %s, and nothing is kept', async (fault, field) => {
    const r = await add(fault);
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe(field);
    expect((await sb.call('GET', '/_sandbox/faults')).body.data).toEqual([]);
  });

  it('a route whose parameter carries a suffix ({gate}:approve) is faulted as the router reads it', async () => {
    const run = await sb.createRun('Faulted at its gate');
    expect((await add({ route: 'POST /v1/runs/{run}/gates/{gate}:approve', status: 503, times: 1 })).status).toBe(201);
    expect((await sb.call('POST', `/v1/runs/${run.id}/gates/idea:approve`, {})).status).toBe(503);
    expect((await sb.call('GET', '/_sandbox/faults')).body.data[0]).toMatchObject({ applied: 1 });
    await sb.call('DELETE', '/_sandbox/faults');
  });

  it('a route with {id} segments is one the sandbox has; at most 100 faults are held at once', async () => {
    expect((await add({ route: 'GET /v1/runs/{run}/events', cut_after: 1, times: 1 })).status).toBe(201);
    for (let i = 1; i < 100; i++)
      expect((await add({ route: 'GET /v1/runs/{run}', latency_ms: 1, times: 1 })).status).toBe(201);
    const over = await add({ route: 'GET /v1/runs', status: 500 });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/at most 100/);
    expect((await sb.call('GET', '/_sandbox/faults')).body.data).toHaveLength(100);
    await sb.call('DELETE', '/_sandbox/faults');
  });
});

describe('a full disk', () => {
  it('is 503 unavailable with Retry-After, saying the disk is full, and nothing applied; once there is room it works', async () => {
    const own = await startTestSandbox({ stageMs: 60_000 });
    try {
      // SQLite's own limit on the database's pages: its writes fail as on a full disk (SQLITE_FULL).
      const db = (
        own.store as unknown as {
          db: { exec(sql: string): void; prepare(sql: string): { get(): Record<string, number> } };
        }
      ).db;
      const pages = db.prepare('PRAGMA page_count').get().page_count!;
      db.exec(`PRAGMA max_page_count = ${pages}`);
      const before = (await own.call('GET', '/v1/runs')).body.data.length;
      let full: { status: number; headers: Headers; body: any } | null = null;
      for (let i = 0; i < 200 && !full; i++) {
        const r = await own.call('POST', '/v1/runs', {
          mode: 'idea',
          idea: { pitch: `A run that fills the disk ${i} ${'x'.repeat(2000)}`, audience: 'a', monetization: 'free' },
        });
        if (r.status !== 201) full = r;
      }
      expect(full?.status).toBe(503);
      expect(full?.headers.get('retry-after')).toBe('60');
      expect(full?.body.error).toMatchObject({ type: 'api_error', code: 'unavailable' });
      expect(full?.body.error.message).toMatch(/disk is full/);
      const after = (await own.call('GET', '/v1/runs?limit=100')).body.data.length;
      db.exec('PRAGMA max_page_count = 1073741823');
      expect(
        (
          await own.call('POST', '/v1/runs', {
            mode: 'idea',
            idea: { pitch: 'Room again', audience: 'a', monetization: 'free' },
          })
        ).status,
      ).toBe(201);
      expect((await own.call('GET', '/v1/runs?limit=100')).body.data.length).toBe(after + 1);
      expect(after).toBeGreaterThanOrEqual(before);
    } finally {
      await own.close();
    }
  });
});
