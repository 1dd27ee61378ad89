// Gate decisions through `orc mcp` on a live target, and wait_for_run as a task: the person is asked through MCP elicitation (and their
// answer is what is done); a client that cannot ask gets a tool error, never a silent decision. The server
// in process (as `orc mcp --live` builds it), the SDK's own client, the sandbox as the service.
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessMcp } from '../helpers/mcp.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 40 });
});
afterAll(() => sb.close());

/** A client connected to a server that asks the person (askHuman), answering elicitations with `answer`. */
async function connect(answer: ((message: string) => ElicitResult) | null, askHuman = true) {
  const asked: string[] = [];
  const elicit = answer
    ? (message: string) => {
        asked.push(message);
        return answer(message);
      }
    : undefined;
  const { client, close } = await inProcessMcp({
    baseUrl: sb.url,
    apiKey: KEY,
    askHuman,
    ...(elicit ? { elicit } : {}),
  });
  return { client, asked, close };
}

async function atIdeaGate(): Promise<string> {
  const run = await sb.createRun('Decided by a person');
  await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
  return run.id;
}
const ideaGate = async (id: string) => (await sb.call('GET', `/v1/runs/${id}/gates`)).body.data[0];
type Result = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: any };

describe('approve_gate and reject_gate on a live service', () => {
  it('are refused with a clear tool error when the client cannot ask; nothing is decided', async () => {
    const id = await atIdeaGate();
    const { client, close } = await connect(null);
    try {
      const r = (await client.callTool({ name: 'approve_gate', arguments: { run_id: id, gate: 'idea' } })) as Result;
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toContain('cannot ask');
      expect(r.content[0]!.text).toContain('--yes-live-decisions');
      expect((await ideaGate(id)).state).toBe('pending');
    } finally {
      await close();
    }
  });

  it('ask the person, whose decision and notes are the ones made (a rejection in place of the agent’s approve)', async () => {
    const id = await atIdeaGate();
    const { client, asked, close } = await connect(() => ({
      action: 'accept',
      content: { decision: 'reject', notes: 'Warmer, please' },
    }));
    try {
      const r = (await client.callTool({ name: 'approve_gate', arguments: { run_id: id, gate: 'idea' } })) as Result;
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      expect(asked[0]).toContain(`approve gate idea of ${id} on the LIVE service`);
      expect(r.structuredContent.gate.gate).toMatchObject({ name: 'idea', state: 'rejected', notes: 'Warmer, please' });
    } finally {
      await close();
    }
  });

  it('do nothing when the person declines', async () => {
    const id = await atIdeaGate();
    const { client, close } = await connect(() => ({ action: 'decline' }));
    try {
      const r = (await client.callTool({
        name: 'reject_gate',
        arguments: { run_id: id, gate: 'idea', notes: 'No' },
      })) as Result;
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toContain('declined');
      expect((await ideaGate(id)).state).toBe('pending');
    } finally {
      await close();
    }
  });

  it('in test mode (or with --yes-live-decisions) decide without asking', async () => {
    const id = await atIdeaGate();
    const { client, asked, close } = await connect(() => ({ action: 'decline' }), false);
    try {
      const r = (await client.callTool({ name: 'approve_gate', arguments: { run_id: id, gate: 'idea' } })) as Result;
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      expect(asked).toEqual([]);
      expect((await ideaGate(id)).state).toBe('approved');
    } finally {
      await close();
    }
  });
});

describe('approve_gate and reject_gate with a spec_patch', () => {
  it('change the App Spec first, then decide; a refused change decides nothing', async () => {
    const { client, close } = await connect(null, false);
    try {
      const id = await atIdeaGate();
      const ok = (await client.callTool({
        name: 'approve_gate',
        arguments: { run_id: id, gate: 'idea', spec_patch: { tagline: 'Run every day' } },
      })) as Result;
      expect(ok.isError, ok.content[0]?.text).toBeFalsy();
      expect(ok.structuredContent.spec.tagline).toBe('Run every day');
      expect((await sb.call('GET', `/v1/runs/${id}/spec`)).body.tagline).toBe('Run every day');
      expect((await ideaGate(id)).state).toBe('approved');

      const other = await atIdeaGate();
      const refused = (await client.callTool({
        name: 'reject_gate',
        arguments: { run_id: other, gate: 'idea', notes: 'rework it', spec_patch: { bundle_id: 'not a bundle id' } },
      })) as Result;
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toContain('bundle_id');
      expect((await ideaGate(other)).state).toBe('pending');

      // A gate that does not wait for the decision (brand, while the run waits at idea): the spec is not
      // changed either.
      const before = (await sb.call('GET', `/v1/runs/${other}/spec`)).body;
      const early = (await client.callTool({
        name: 'approve_gate',
        arguments: { run_id: other, gate: 'brand', spec_patch: { tagline: 'Too early' } },
      })) as Result;
      expect(early.isError).toBe(true);
      expect(early.content[0]?.text).toContain('gate_not_pending');
      expect((await sb.call('GET', `/v1/runs/${other}/spec`)).body).toEqual(before);
    } finally {
      await close();
    }
  });
});

describe('wait_for_run as an MCP task', () => {
  it('a client that supports tasks gets a task at once, then the wait’s result when it ends', async () => {
    const { client, close } = await inProcessMcp({ baseUrl: sb.url, apiKey: KEY, tasks: true });
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'wait_for_run')!.execution).toMatchObject({ taskSupport: 'optional' });
      const run = await sb.createRun('Waited as a task');
      const seen: string[] = [];
      let result: any;
      for await (const m of client.experimental.tasks.callToolStream(
        { name: 'wait_for_run', arguments: { run_id: run.id, timeout_s: 30 } },
        undefined,
        { task: { ttl: 60_000 } },
      )) {
        seen.push(m.type);
        if (m.type === 'result') result = m.result;
        if (m.type === 'error') throw m.error;
      }
      expect(seen[0]).toBe('taskCreated');
      expect(seen.at(-1)).toBe('result');
      expect(result.structuredContent).toMatchObject({ outcome: 'gate_pending', gate: 'idea', run: { id: run.id } });
    } finally {
      await close();
    }
  });
});
