// `orc mcp --http`'s server in process (src/mcp/http.ts, given createServer as the command gives it), the sandbox
// as the service: the SDK's client over Streamable HTTP, the token, Host and Origin, malformed bodies, the
// session cap and idle expiry on a fake clock, clients that vanish mid-wait_for_run leaving nothing open, and a
// live gate decision asked of the person through elicitation (or refused, needs_human, where the client cannot ask).
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/api/index.js';
import { systemClock } from '../../src/lib/clock.js';
import { type McpHttp, type McpHttpOptions, serveMcpHttp } from '../../src/mcp/http.js';
import { createServer, liveWaits, toolDefs } from '../../src/mcp/server.js';
import { FakeClock } from '../helpers/clock.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

const TOKEN = 'a-token-of-the-test-0123456789abcdef';
let sb: TestSandbox;
beforeAll(async () => {
  // (1 h stages: a run stays where it was made, so a wait_for_run on it waits until it is ended)
  sb = await startTestSandbox({ stageMs: 3_600_000 });
});
afterAll(() => sb.close());

let served: McpHttp | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(over: Partial<McpHttpOptions> = {}): Promise<McpHttp & { clock: FakeClock }> {
  const api = createApi({ baseUrl: sb.url, apiKey: KEY, userAgent: 'test' });
  const tools = toolDefs(api, systemClock);
  const clock = new FakeClock();
  served = await serveMcpHttp({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    clock,
    newServer: () => createServer({ api, version: 'test', tools }),
    maxSessions: 32,
    idleMs: 60_000,
    maxStreams: 16,
    maxBodyBytes: 10 << 20,
    ...over,
  });
  return Object.assign(served, { clock });
}

async function connect(url: string, token = TOKEN) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}
/** One request as sent, every header the test's (Host and Origin included); `held` gets the request while
 * its answer is open, to be destroyed as a client that vanishes. */
function raw(
  url: string,
  o: {
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    held?: (r: Raw, destroy: () => void) => void;
  },
): Promise<Raw> {
  const body = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: o.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
          ...o.headers,
        },
      },
      (res) => {
        const r: Raw = { status: res.statusCode!, headers: res.headers, body: '' };
        if (o.held) {
          res.on('error', () => {});
          return o.held(r, () => req.destroy());
        }
        res.setEncoding('utf8');
        res.on('data', (c: string) => (r.body += c));
        res.on('end', () => {
          if (/json/.test(String(res.headers['content-type']))) r.body = JSON.parse(r.body);
          resolve(r);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A session opened by hand, as a client that can then vanish: its id. */
async function rawSession(url: string): Promise<string> {
  const r = await raw(url, { body: initialize() });
  expect(r.status).toBe(200);
  const sid = String(r.headers['mcp-session-id']);
  const note = await raw(url, {
    headers: { 'mcp-session-id': sid },
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  expect(note.status).toBe(202);
  return sid;
}

describe('orc mcp --http', () => {
  it('serves an SDK client with the token: it lists the tools and calls get_run', async () => {
    const mcp = await start();
    const run = await sb.createRun('Over HTTP');
    const { client } = await connect(mcp.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('get_run');
      const r = (await client.callTool({ name: 'get_run', arguments: { run_id: run.id } })) as any;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent.run.id).toBe(run.id);
      expect(mcp.sessions()).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('answers 401 (WWW-Authenticate: Bearer) without the token or with a wrong one, and does nothing', async () => {
    const mcp = await start();
    const { client, transport } = await connect(mcp.url);
    const before = (await sb.call('GET', '/v1/runs?limit=100')).body.data.length;
    const create = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'create_run', arguments: { mode: 'idea', idea: { pitch: 'Never made', monetization: 'free' } } },
    };
    const sid = transport.sessionId!;
    for (const authorization of ['', 'Bearer wrong-token', `Basic ${TOKEN}`]) {
      const r = await raw(mcp.url, { headers: { authorization, 'mcp-session-id': sid }, body: create });
      expect(r.status, authorization).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer');
      expect(r.body.error).toBe('unauthorized');
      expect((await raw(mcp.url, { headers: { authorization }, body: initialize() })).status).toBe(401);
    }
    expect((await sb.call('GET', '/v1/runs?limit=100')).body.data.length).toBe(before);
    expect(mcp.sessions()).toBe(1);
    await client.close();
  });

  it('answers 403 to a Host or an Origin not its own, before it looks at the token', async () => {
    const mcp = await start();
    const port = new URL(mcp.url).port;
    const bad: Array<Record<string, string>> = [
      { host: `evil.example:${port}` },
      { origin: 'http://evil.example' },
      { origin: `https://evil.example:${port}`, authorization: '' },
      { host: `evil.example:${port}`, authorization: 'Bearer wrong' },
    ];
    for (const headers of bad) {
      const r = await raw(mcp.url, { headers, body: initialize() });
      expect(r.status, JSON.stringify(headers)).toBe(403);
    }
    const good: Array<Record<string, string>> = [
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      { host: '[::1]:9' },
    ];
    for (const headers of good)
      expect((await raw(mcp.url, { headers, body: initialize() })).status, JSON.stringify(headers)).toBe(200);
    expect(mcp.sessions()).toBe(2);
  });

  it('answers a method it does not serve with 405, Allow and a body that names the methods', async () => {
    const mcp = await start();
    const r = await raw(mcp.url, { method: 'PUT', body: initialize() });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, POST, DELETE');
    expect(r.body).toEqual({
      error: 'method_not_allowed',
      message: 'orc mcp answers POST, GET and DELETE at /mcp, not PUT',
    });
  });

  it('answers a malformed body with the JSON-RPC error and 400 (413 past the bound), and goes on serving', async () => {
    const mcp = await start({ maxBodyBytes: 4096 });
    const { client, transport } = await connect(mcp.url);
    const headers = { 'mcp-session-id': transport.sessionId! };
    const cases: Array<[unknown, number, number]> = [
      ['{"jsonrpc":"2.0",', 400, -32700],
      [{ hello: 'world' }, 400, -32600],
      [[], 400, -32600],
      ['x'.repeat(5000), 413, -32600],
    ];
    for (const [body, status, code] of cases) {
      const r = await raw(mcp.url, { headers, body });
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
    }
    expect(await client.ping()).toEqual({});
    await client.close();
  });

  it('at --max-sessions a new initialize closes the least recently active idle session: ten clients in a row', async () => {
    // The SDK client's close() sends no DELETE: without this, closed clients would hold every place.
    const mcp = await start({ maxSessions: 4 });
    for (let i = 0; i < 10; i++) {
      const { client } = await connect(mcp.url);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('get_run');
      expect(mcp.sessions()).toBeLessThanOrEqual(4);
      await client.close();
    }
    expect(mcp.sessions()).toBe(4);
  });

  it('at --max-sessions with a request open in every session, a new initialize gets 503; one ended frees a place', async () => {
    const api = createApi({ baseUrl: sb.url, apiKey: KEY, userAgent: 'test' });
    const tools = toolDefs(api, systemClock);
    const servers: McpServer[] = [];
    const newServer = () => servers[servers.push(createServer({ api, version: 'test', tools })) - 1]!;
    const mcp = await start({ maxSessions: 4, newServer });
    const run = await sb.createRun('Holds its session');
    const wait = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'wait_for_run', arguments: { run_id: run.id } },
    };
    const held: Array<() => void> = [];
    for (let i = 0; i < 4; i++) {
      const sid = await rawSession(mcp.url);
      await new Promise<void>((opened) =>
        raw(mcp.url, { headers: { 'mcp-session-id': sid }, body: wait, held: (_r, d) => opened(void held.push(d)) }),
      );
    }
    await until(() => sb.openStreams() === 4, 'every wait to open its stream');
    const r = await raw(mcp.url, { body: initialize() });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toContain('--max-sessions');
    expect(mcp.sessions()).toBe(4);
    held[2]!();
    // (orc's end of the wait, which frees its session's place, may come a moment after the service's)
    const waits = () => servers.reduce((n, s) => n + liveWaits(s), 0);
    await until(() => sb.openStreams() === 3 && waits() === 3, 'the vanished wait to end, at the service and in orc');
    expect((await raw(mcp.url, { body: initialize() })).status).toBe(200);
    expect(mcp.sessions()).toBe(4);
    for (const destroy of held) destroy();
  });

  it('at --max-sessions a new initialize evicts the idle session, not one whose wait_for_run task is running', async () => {
    const mcp = await start({ maxSessions: 2 });
    const run = await sb.createRun('Waited on in the background');
    const a = await rawSession(mcp.url);
    const wait = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'wait_for_run', arguments: { run_id: run.id }, task: { ttl: 600_000 } },
    };
    const created = await raw(mcp.url, { headers: { 'mcp-session-id': a }, body: wait });
    expect(created.status).toBe(200);
    const taskId = /"taskId":"([^"]+)"/.exec(created.body)?.[1];
    expect(taskId).toBeDefined();
    await until(() => sb.openStreams() === 1, 'the task wait to open its stream');
    // B is active after A, so A is the least recently active: only its wait keeps it.
    mcp.clock.advance(1_000);
    const b = await rawSession(mcp.url);
    expect((await raw(mcp.url, { body: initialize() })).status).toBe(200);
    expect(mcp.sessions()).toBe(2);
    const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
    expect((await raw(mcp.url, { headers: { 'mcp-session-id': b }, body: ping })).status).toBe(404);
    const get = { jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { taskId } };
    const got = await raw(mcp.url, { headers: { 'mcp-session-id': a }, body: get });
    expect(got.status).toBe(200);
    expect(got.body).toContain('"status":"working"');
    expect(sb.openStreams()).toBe(1);
  });

  it('closes a session idle for idleMs on its clock; one with a request open stays', async () => {
    const mcp = await start({ idleMs: 60_000 });
    const sid = await rawSession(mcp.url);
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    const headers = { 'mcp-session-id': sid };
    mcp.clock.advance(59_000);
    expect((await raw(mcp.url, { headers, body: ping })).status).toBe(200);
    mcp.clock.advance(59_000);
    expect(mcp.sessions()).toBe(1);
    // Its event stream open (GET), the session is in use however long.
    let closeStream = () => {};
    await new Promise<void>((opened) =>
      raw(mcp.url, { method: 'GET', headers, held: (_r, destroy) => opened(void (closeStream = destroy)) }),
    );
    mcp.clock.advance(120_000);
    expect(mcp.sessions()).toBe(1);
    const armed = mcp.clock.requested.length;
    closeStream();
    await until(() => mcp.clock.requested.length > armed, 'the idle timer armed again');
    mcp.clock.advance(60_000);
    await until(() => mcp.sessions() === 0, 'the idle session to close');
    expect((await raw(mcp.url, { headers, body: ping })).status).toBe(404);
  });

  it('drops what 30 vanishing clients left: their wait_for_run (called or as tasks) ends, and its stream', async () => {
    const mcp = await start({ idleMs: 60_000 });
    const run = await sb.createRun('Never moves');
    const vanish: Array<() => void> = [];
    for (let i = 0; i < 30; i++) {
      const sid = await rawSession(mcp.url);
      const params = {
        name: 'wait_for_run',
        arguments: { run_id: run.id },
        ...(i % 2 ? { task: { ttl: 600_000 } } : {}),
      };
      const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params };
      if (i % 2) expect((await raw(mcp.url, { headers: { 'mcp-session-id': sid }, body: call })).status).toBe(200);
      else
        await new Promise<void>((held) =>
          raw(mcp.url, {
            headers: { 'mcp-session-id': sid },
            body: call,
            held: (_r, destroy) => {
              vanish.push(destroy);
              held();
            },
          }),
        );
    }
    await until(() => sb.openStreams() === 30, 'every wait to open its stream', { seen: () => `${sb.openStreams()}` });
    for (const destroy of vanish) destroy();
    // The called waits end with their connection; the tasks' with their sessions, closed when idle.
    await until(() => sb.openStreams() === 15, 'the called waits to close their streams', {
      seen: () => `${sb.openStreams()}`,
    });
    expect(mcp.sessions()).toBe(30);
    mcp.clock.advance(60_000);
    await until(() => sb.openStreams() === 0 && mcp.sessions() === 0, 'the tasks to end with their sessions', {
      seen: () => `${sb.openStreams()} streams, ${mcp.sessions()} sessions`,
    });
  });
});

describe('orc mcp --http: live gate decisions ask the person (elicitation)', () => {
  /** What a live key without --yes-live-decisions serves: approve_gate and reject_gate ask the client's person. */
  const startAsking = () => {
    const api = createApi({ baseUrl: sb.url, apiKey: KEY, userAgent: 'test' });
    const tools = toolDefs(api, systemClock);
    return start({ newServer: () => createServer({ api, version: 'test', tools, askHuman: true }) });
  };
  const atBrand = async (pitch: string) => {
    const run = await sb.createRun(pitch);
    const moved = await sb.call('POST', '/_sandbox/clock/advance', { run: run.id, to: 'gate:brand' });
    expect(moved.body.run).toMatchObject({ status: 'awaiting_approval', gate_pending: 'brand' });
    return run.id as string;
  };
  const brandGate = async (runId: string) =>
    (await sb.call('GET', `/v1/runs/${runId}/gates`)).body.data.find((g: any) => g.name === 'brand');

  it("the person's answer is the decision made: approve_gate asked, they reject with notes, it is rejected", async () => {
    const mcp = await startAsking();
    const runId = await atBrand('Asked over HTTP');
    const client = new Client({ name: 'asking', version: '1' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: { decision: 'reject', notes: 'darker palette' } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcp.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const r = (await client.callTool({ name: 'approve_gate', arguments: { run_id: runId, gate: 'brand' } })) as any;
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(`approve gate brand of ${runId}`);
      expect(r.structuredContent.gate.gate).toMatchObject({
        name: 'brand',
        state: 'rejected',
        notes: 'darker palette',
      });
      expect(await brandGate(runId)).toMatchObject({ state: 'rejected', notes: 'darker palette' });
      expect((await sb.call('GET', `/v1/runs/${runId}`)).body).toMatchObject({ status: 'running', stage: '03_brand' });
    } finally {
      await client.close();
    }
  });

  it('a client that cannot ask (no elicitation) gets the tool error needs_human; the gate stays pending', async () => {
    const mcp = await startAsking();
    const runId = await atBrand('Nobody to ask');
    const { client } = await connect(mcp.url);
    try {
      const r = (await client.callTool({ name: 'approve_gate', arguments: { run_id: runId, gate: 'brand' } })) as any;
      expect(r.isError).toBe(true);
      expect(r.content[0].text).toMatch(/^needs_human: /);
      expect(r.content[0].text).toContain(`orc gate approve ${runId} brand --live`);
      expect(await brandGate(runId)).toMatchObject({ state: 'pending', decided_at: null });
      expect((await sb.call('GET', `/v1/runs/${runId}`)).body.gate_pending).toBe('brand');
    } finally {
      await client.close();
    }
  });
});
