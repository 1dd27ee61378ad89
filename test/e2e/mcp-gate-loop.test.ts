// The gate loop by an agent over `orc mcp` (the built orc, the MCP SDK's own client over stdio, no model): a
// #lowscore run read at its final gate, its spec patched from the failing checks' field and suggestion alone,
// final rejected with notes, the rework read again, approved, accepted.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../helpers/mcp.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let client: Client;
beforeAll(async () => {
  sb = await startTestSandbox();
  client = await connectMcp(sb.url, { name: 'scripted-agent' });
});
afterAll(async () => {
  await client?.close();
  await sb?.close();
});

type Check = { id: string; status: string; field?: string | null; hint?: string | null; suggestion?: unknown };
type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };

async function call(name: string, args: Record<string, unknown>): Promise<Result> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as Result;
  expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy();
  return r;
}

/** wait_for_run until something happened (a timeout answer only says to call again). */
async function waitForRun(runId: string): Promise<any> {
  for (;;) {
    const r = (await call('wait_for_run', { run_id: runId })).structuredContent;
    if (r.outcome !== 'timeout') return r;
  }
}

/** The agent's one piece of knowledge: a check's dotted field and a value for it make a JSON Merge Patch (a check
 * with no suggestion is left out: null in a merge patch removes the field). */
function mergePatch(checks: Check[]): Record<string, unknown> {
  const patch: Record<string, any> = {};
  for (const c of checks) {
    if (!c.field || c.suggestion === null || c.suggestion === undefined) continue;
    const keys = c.field!.split('.');
    let at = patch;
    for (const key of keys.slice(0, -1)) at = at[key] ??= {};
    at[keys.at(-1)!] = c.suggestion;
  }
  return patch;
}

describe('orc mcp: the gate loop', () => {
  it('tells an agent how to use the failing checks, in the tools it offers', async () => {
    const { tools } = await client.listTools();
    const tool = (name: string) => tools.find((t) => t.name === name)!;
    const card = tool('get_scorecard');
    for (const word of ['field', 'hint', 'suggestion', 'update_spec', 'reject_gate'])
      expect(card.description, word).toContain(word);
    // The output schema says what a check and a component carry, for an agent that reads schemas.
    const scorecard = (card.outputSchema!.properties as any).scorecard;
    const check = scorecard.properties.preflight.properties.checks.items;
    expect(Object.keys(check.properties)).toEqual(expect.arrayContaining(['field', 'hint', 'suggestion']));
    expect(scorecard.properties.components.items.properties).toHaveProperty('suggestion');
    // How a suggestion becomes a patch is said where the patch is given.
    expect((tool('update_spec').inputSchema.properties as any).patch.description).toContain('suggestion');
  });

  it('a #lowscore run is fixed from the failing checks alone, rejected with notes, and then accepted', async () => {
    const created = await call('create_run', {
      mode: 'idea',
      idea: { pitch: 'A plant watering diary #lowscore', audience: 'home gardeners', monetization: 'free' },
    });
    const runId = created.structuredContent.run.id as string;
    let at = await waitForRun(runId);
    while (at.outcome === 'gate_pending' && at.gate !== 'final') {
      await call('approve_gate', { run_id: runId, gate: at.gate });
      at = await waitForRun(runId);
    }
    expect(at).toMatchObject({ outcome: 'gate_pending', gate: 'final' });

    let rounds = 0;
    while (!at.deciding.scorecard.passed && rounds < 3) {
      rounds++;
      const read = await call('get_scorecard', { run_id: runId });
      const card = read.structuredContent.scorecard;
      // Passed through untouched: what the service answered, field, hint, suggestion and components included.
      expect(card).toEqual((await sb.call('GET', `/v1/runs/${runId}/scorecard`)).body);
      expect(at.deciding.scorecard).toEqual(card);
      expect(card.components.length).toBeGreaterThan(0);
      const failing = (card.preflight.checks as Check[]).filter((c) => c.status === 'fail');
      expect(failing.length).toBeGreaterThan(0);
      for (const c of failing) {
        expect(c.field, c.id).toEqual(expect.any(String));
        expect(c.suggestion, c.id).not.toBeNull();
        // A model that reads only the text can act on it too.
        expect(read.content[0]!.text).toContain(`${c.field}: ${c.hint}`);
      }
      const patched = await call('update_spec', { run_id: runId, patch: mergePatch(failing) });
      expect(patched.structuredContent.spec).toEqual((await sb.call('GET', `/v1/runs/${runId}/spec`)).body);
      const notes = failing.map((c) => `${c.field}: ${c.hint}`).join('\n');
      await call('reject_gate', { run_id: runId, gate: 'final', notes });
      at = await waitForRun(runId);
      expect(at).toMatchObject({ outcome: 'gate_pending', gate: 'final' });
    }
    expect(rounds).toBe(1);
    const card = (await call('get_scorecard', { run_id: runId })).structuredContent.scorecard;
    expect(card.passed).toBe(true);
    expect(card.preflight.checks.filter((c: Check) => c.status === 'fail')).toEqual([]);

    await call('approve_gate', { run_id: runId, gate: 'final' });
    expect(await waitForRun(runId)).toMatchObject({ outcome: 'ended', status: 'accepted' });
    expect((await sb.call('GET', `/v1/runs/${runId}`)).body.status).toBe('accepted');
  }, 120_000);
});
