// tools/list as orc sends it (src/mcp/listing.ts): lean — no "$schema", no `additionalProperties: {}`, no
// `execution` for a tool that cannot run as a task — and still what the SDK's client checks results against; the
// ids the input schemas take are bounded.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inProcessMcp } from '../helpers/mcp.js';
import { startTestSandbox, KEY, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 3_600_000 });
});
afterAll(() => sb.close());

const connect = () => inProcessMcp({ baseUrl: sb.url, apiKey: KEY, tools: (all) => all });

/** Every place in `v` where `test` holds, as a path. */
function where(v: unknown, test: (key: string, value: unknown) => boolean, at = ''): string[] {
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => [
    ...(test(k, x) ? [`${at}/${k}`] : []),
    ...where(x, test, `${at}/${k}`),
  ]);
}

it('lists no $schema, no empty additionalProperties and no forbidden execution; wait_for_run keeps its task', async () => {
  const { client, close } = await connect();
  try {
    const { tools } = await client.listTools();
    expect(tools.length).toBe(22);
    expect(where(tools, (k) => k === '$schema')).toEqual([]);
    const empty = (k: string, x: unknown) =>
      k === 'additionalProperties' && typeof x === 'object' && x !== null && Object.keys(x).length === 0;
    expect(where(tools, empty)).toEqual([]);
    expect(tools.filter((t) => t.execution).map((t) => [t.name, t.execution])).toEqual([
      ['wait_for_run', { taskSupport: 'optional' }],
    ]);
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
    }
    // reset_sandbox takes nothing: an object with no properties.
    expect(tools.find((t) => t.name === 'reset_sandbox')!.inputSchema).toEqual({ type: 'object', properties: {} });
  } finally {
    await close();
  }
});

it("is what the client checks a result against: a run's fields beyond the contract's pass (open objects)", async () => {
  const { client, close } = await connect();
  try {
    await client.listTools(); // (the client checks structured results against the listed output schemas)
    const run = await sb.createRun('Listed lean');
    const got = (await client.callTool({ name: 'get_run', arguments: { run_id: run.id } })) as {
      isError?: boolean;
      structuredContent?: { run: Record<string, unknown> };
    };
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent!.run).toMatchObject({ id: run.id, status: 'running' });
  } finally {
    await close();
  }
});

it('refuses an id longer than any the service makes before anything is sent (a pasted document is no URL)', async () => {
  const { client, close } = await connect();
  try {
    const r = (await client.callTool({ name: 'get_run', arguments: { run_id: `run_${'x'.repeat(1 << 20)}` } })) as {
      isError?: boolean;
      content: Array<{ text?: string }>;
    };
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/run_id/);
    const logs = JSON.stringify((await sb.call('GET', '/_sandbox/logs')).body);
    expect(logs).not.toContain('x'.repeat(64));
  } finally {
    await close();
  }
});
