// wait_for_run as an MCP task (src/mcp/tasks.ts): a task the client cancels ends its wait and closes its event
// stream to the service at once, as a server closing ends all of them (the store alone only marked it); one
// client holds a bounded number of waits.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_WAITS, WaitTasks } from '../../src/mcp/tasks.js';
import { inProcessMcp } from '../helpers/mcp.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  // (1 h stages: a run stays where it was made, so a wait on it lasts until it is ended)
  sb = await startTestSandbox({ stageMs: 3_600_000 });
});
afterAll(() => sb.close());

const connect = () => inProcessMcp({ baseUrl: sb.url, apiKey: KEY, tasks: true });

/** Starts a task-mode wait_for_run of an hour on a run that does not move; resolves with its task id. */
async function waitAsTask(client: Client, runId: string): Promise<string> {
  const created = (await client.request(
    {
      method: 'tools/call',
      params: { name: 'wait_for_run', arguments: { run_id: runId, timeout_s: 3600 }, task: { ttl: 600_000 } },
    },
    CreateTaskResultSchema,
  )) as { task: { taskId: string } };
  return created.task.taskId;
}

it('a cancelled task ends its wait: its event stream to the service closes, and the task says cancelled', async () => {
  const { client, close } = await connect();
  try {
    const run = await sb.createRun('Waited, then let go');
    const before = sb.openStreams();
    const taskId = await waitAsTask(client, run.id);
    await until(() => sb.openStreams() === before + 1, 'the wait to open its stream');
    await client.experimental.tasks.cancelTask(taskId);
    await until(() => sb.openStreams() === before, 'the cancelled wait to close its stream', {
      seen: () => `${sb.openStreams()} open`,
    });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
  } finally {
    await close();
  }
});

it('a server that closes ends every task’s wait', async () => {
  const { client, close } = await connect();
  const run = await sb.createRun('Waited, then the server went');
  const before = sb.openStreams();
  await waitAsTask(client, run.id);
  await waitAsTask(client, run.id);
  await until(() => sb.openStreams() === before + 2, 'both waits to open their streams');
  await close();
  await until(() => sb.openStreams() === before, 'the waits to close their streams', {
    seen: () => `${sb.openStreams()} open`,
  });
});

it('one client holds at most MAX_WAITS waits: one more is a tool error (too_many_waits) until one ends', async () => {
  const { client, close } = await connect();
  try {
    const run = await sb.createRun('Waited on by many');
    const before = sb.openStreams();
    const ids: string[] = [];
    for (let i = 0; i < MAX_WAITS; i++) ids.push(await waitAsTask(client, run.id));
    await until(() => sb.openStreams() === before + MAX_WAITS, 'every wait to open its stream', {
      seen: () => `${sb.openStreams() - before} open`,
    });
    const refused = (await client.callTool({ name: 'wait_for_run', arguments: { run_id: run.id } })) as {
      isError?: boolean;
      content: Array<{ text?: string }>;
    };
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^too_many_waits: .*16 wait_for_run waits/);
    expect(sb.openStreams()).toBe(before + MAX_WAITS);
    await client.experimental.tasks.cancelTask(ids[0]!);
    await waitAsTask(client, run.id); // (the cancelled task's place is free once tasks/cancel is answered)
    await until(() => sb.openStreams() === before + MAX_WAITS, 'a new wait in the place it left', {
      seen: () => `${sb.openStreams() - before} open`,
    });
  } finally {
    await close();
  }
  await until(() => sb.openStreams() === 0, 'every wait to end with the server');
});

it('keeps a task at least as long as its wait: a shorter ttl asked for is raised, so a wait is never left uncancellable', async () => {
  const { client, close } = await connect();
  try {
    const run = await sb.createRun('Waited longer than asked to keep');
    const created = (await client.request(
      {
        method: 'tools/call',
        params: { name: 'wait_for_run', arguments: { run_id: run.id, timeout_s: 600 }, task: { ttl: 1000 } },
      },
      CreateTaskResultSchema,
    )) as { task: { taskId: string; ttl: number } };
    expect(created.task.ttl).toBeGreaterThanOrEqual(600_000);
    await client.experimental.tasks.cancelTask(created.task.taskId);
  } finally {
    await close();
  }
});

it('frees a cancelled task’s place when the cancel is stored, before its wait has wound down', async () => {
  const store = new WaitTasks(1);
  const call = { method: 'tools/call', params: { name: 'wait_for_run' } };
  const [a, b] = [await store.createTask({ ttl: 60_000 }, 1, call), await store.createTask({ ttl: 60_000 }, 2, call)];
  const signal = store.begin(a.taskId)!;
  expect(store.begin(b.taskId)).toBeNull();
  await store.updateTaskStatus(a.taskId, 'cancelled');
  expect(signal.aborted).toBe(true);
  expect(store.begin(b.taskId)).not.toBeNull();
  store.cleanup();
});
