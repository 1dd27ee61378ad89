// A traceparent in an MCP request's _meta goes on to the service as the W3C header on every request made for
// it (create_run's POST, a task-mode wait_for_run's event stream), as the sandbox's request journal shows;
// each MCP request its own. The server in process, the SDK's client, a sandbox on a manual clock.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../../src/api/index.js';
import type { JournalEntry } from '../../src/contract/sandbox-control.js';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { inProcessMcp } from '../helpers/mcp.js';
import { until } from '../helpers/until.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;
const CREATE = { trace: '4bf92f3577b34da6a3ce929d0e0e4736', parent: '00f067aa0ba902b7' };
const WAIT = { trace: '0af7651916cd43dd8448eb211c80319c', parent: 'b7ad6b7169203331' };
const traceparent = (t: typeof CREATE) => `00-${t.trace}-${t.parent}-01`;

let sb: TestSandbox;
let client: Client;
let close: () => Promise<unknown>;
let api: Api;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  ({ client, close, api } = await inProcessMcp({ baseUrl: sb.url, apiKey: sb.apiKey, tasks: true }));
});
afterAll(async () => {
  await close?.();
  await sb?.stop();
});

type Request = Extract<JournalEntry, { type: 'request' }>;
/** What the journal holds of the requests that match, once there is one. */
const logged = async (match: (e: Request) => boolean) => {
  const found = (await journal()).filter(match);
  return found.length ? found : null;
};
const journal = async () =>
  (await api.sandbox.call<{ data: JournalEntry[] }>('GET', '/_sandbox/logs')).data.filter(
    (e): e is Request => e.type === 'request',
  );

describe('a traceparent in an MCP request’s _meta', () => {
  it('is sent on create_run’s POST /v1/runs, and a task-mode wait_for_run’s stream carries its own', async () => {
    const created = (await client.callTool({
      name: 'create_run',
      arguments: { mode: 'idea', idea: IDEA },
      _meta: { traceparent: traceparent(CREATE), tracestate: 'orc=t1' },
    })) as unknown as { structuredContent: { run: { id: string } } };
    const id = created.structuredContent.run.id;
    const posts = await until(
      () => logged((e) => e.method === 'POST' && e.path === '/v1/runs'),
      'the POST in the journal',
    );
    expect(posts.map((e) => e.trace_id)).toEqual([CREATE.trace]);

    const stream = client.experimental.tasks.callToolStream(
      { name: 'wait_for_run', arguments: { run_id: id, timeout_s: 600 }, _meta: { traceparent: traceparent(WAIT) } },
      undefined,
      { task: { ttl: 60_000 } },
    );
    const seen: string[] = [];
    const done = (async () => {
      for await (const m of stream) seen.push(m.type);
    })();
    // The wait is under way once it reads the run; then the run is moved to its gate and the wait ends.
    await until(() => logged((e) => e.path === `/v1/runs/${id}` && e.trace_id === WAIT.trace), 'the wait’s read');
    await sb.advance({ run: id, to: 'gate:idea' });
    await done;
    expect(seen.at(-1)).toBe('result');
    const events = await until(
      () => logged((e) => e.path === `/v1/runs/${id}/events`),
      'the event stream in the journal',
    );
    expect(events.map((e) => e.trace_id)).toEqual(events.map(() => WAIT.trace));
    expect(events.length).toBeGreaterThan(0);
    const forRun = (await journal()).filter((e) => e.path.startsWith(`/v1/runs/${id}`));
    expect(forRun.every((e) => e.trace_id === WAIT.trace)).toBe(true);
  });
});
