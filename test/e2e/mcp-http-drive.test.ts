// The proof: an agent (the MCP SDK's client over Streamable HTTP, no model) drives a run through the
// built `orc mcp --http` from creation to accepted, moving the sandbox's time itself, deciding each gate from
// what wait_for_run says it decides, and getting the artifacts as links it can read, never as bytes.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpHttp } from '../helpers/mcp-http.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  // 1 h stages: nothing moves unless the agent moves it with advance_clock.
  sb = await startTestSandbox({ stageMs: 3_600_000 });
});
afterAll(() => sb.close());

type Result = { isError?: boolean; content: Array<Record<string, any>>; structuredContent?: any };

let client: Client;
const progress: Progress[] = [];

async function call(name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void) {
  const r = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
    ...(onprogress ? { onprogress } : {}),
  })) as Result;
  expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy();
  return r;
}

/** wait_for_run, asked before time moves (its stream open), then time moved by a day for this run alone: the
 * run goes as far as the next gate or its end, and the wait tells where (and, on the way, its progress). */
async function advanceAndWait(runId: string) {
  const streams = sb.openStreams();
  const waiting = call('wait_for_run', { run_id: runId, timeout_s: 3600 }, (p) => progress.push(p));
  await until(() => sb.openStreams() > streams, 'wait_for_run to open its stream');
  const moved = await call('advance_clock', { run_id: runId, by: '1d' });
  expect(moved.structuredContent.run.id).toBe(runId);
  return (await waiting).structuredContent;
}

/** Each gate as an agent decides it: waited for, what it decides read (as the service has it), approved. */
async function driveToAccepted(runId: string) {
  for (const gate of ['idea', 'brand', 'final']) {
    const at = await advanceAndWait(runId);
    expect(at).toMatchObject({ outcome: 'gate_pending', gate, run: { id: runId, status: 'awaiting_approval' } });
    const spec = (await sb.call('GET', `/v1/runs/${runId}/spec`)).body;
    if (gate === 'idea') expect(at.deciding.summary).toMatchObject({ name: spec.name, audience: spec.audience });
    if (gate === 'brand') expect(at.deciding.brand).toEqual(spec.brand);
    if (gate === 'final') {
      expect(at.deciding.scorecard).toEqual((await sb.call('GET', `/v1/runs/${runId}/scorecard`)).body);
      expect(at.deciding.scorecard.passed).toBe(true);
    }
    const approved = await call('approve_gate', { run_id: runId, gate });
    expect(approved.structuredContent.gate).toMatchObject({ gate: { name: gate, state: 'approved' } });
  }
  const end = await advanceAndWait(runId);
  expect(end).toMatchObject({ outcome: 'ended', status: 'accepted', run: { id: runId, status: 'accepted' } });
  expect((await sb.call('GET', `/v1/runs/${runId}`)).body.status).toBe('accepted');
}

/** screenshots and the ipa as resource links, as the service lists and serves them, and no bytes. */
async function checkFileLinks(runId: string) {
  const manifest = (await call('list_artifacts', { run_id: runId })).structuredContent.artifacts as any[];
  const entry = (kind: string) => manifest.find((a) => a.kind === kind)!;
  for (const kind of ['screenshots', 'ipa']) {
    const got = await call('get_artifact', { run_id: runId, kind });
    expect(JSON.stringify(got)).not.toMatch(/"(blob|data)"/);
    const links = got.content.filter((c) => c.type === 'resource_link');
    const served = (await sb.call('GET', `/v1/runs/${runId}/artifacts/${kind}`)).body.files as any[];
    expect(links.map((l) => [l.name, l.size, l._meta.sha256])).toEqual(served.map((f) => [f.name, f.size, f.sha256]));
    expect(got.structuredContent.files.map((f: any) => f.uri)).toEqual(links.map((l) => l.uri));
    expect(links.length).toBe(entry(kind).files);
    expect(links.reduce((n, l) => n + l.size, 0)).toBe(entry(kind).size);
    if (kind === 'ipa') expect(links[0]!._meta.sha256).toBe(entry('ipa').sha256);
  }
}

/** A JSON kind inline; a screenshot's link read with resources/read, its bytes those its sha256 names. */
async function checkInlineAndRead(runId: string) {
  const card = await call('get_artifact', { run_id: runId, kind: 'scorecard' });
  expect(card.structuredContent).toMatchObject({ kind: 'scorecard', content_type: 'application/json' });
  expect(card.structuredContent.content).toEqual((await sb.call('GET', `/v1/runs/${runId}/scorecard`)).body);
  expect(card.content.every((c) => c.type === 'text')).toBe(true);
  const shot = (await call('get_artifact', { run_id: runId, kind: 'screenshots' })).content.find(
    (c) => c.type === 'resource_link',
  )!;
  const read = await client.readResource({ uri: shot.uri });
  const bytes = Buffer.from(String((read.contents[0] as { blob: string }).blob), 'base64');
  expect(bytes.length).toBe(shot.size);
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(shot._meta.sha256);
}

describe('orc mcp --http: an agent drives a run', () => {
  it('from create_run to accepted: gates decided, artifacts as links, progress told; SIGTERM exits 130', async () => {
    const { url, token, proc } = await startMcpHttp(sb.url, ['--toolsets', 'runs,gates,spec,artifacts,sandbox']);
    try {
      client = new Client({ name: 'driving-agent', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      const created = await call('create_run', {
        mode: 'idea',
        idea: { pitch: 'A tide table for kayakers', audience: 'sea kayakers', monetization: 'freemium' },
      });
      expect(created.structuredContent).toMatchObject({ replayed: false, run: { status: 'running' } });
      const runId = created.structuredContent.run.id as string;
      await driveToAccepted(runId);
      // Progress was told as the run moved (stage and percent), on the waits that asked for it.
      expect(progress.length).toBeGreaterThan(0);
      expect(progress[0]!.message).toMatch(/^\d\d_\w+ \d+%$/);

      await sb.artifactsReady(runId);
      await checkFileLinks(runId);
      await checkInlineAndRead(runId);

      await client.close();
    } finally {
      // (also when a step failed: no server left behind)
      proc.kill('SIGTERM');
    }
    const done = await proc;
    expect(done.exitCode).toBe(130);
    expect(done.stderr).not.toMatch(/error|fail|warn|exception/i);
  }, 180_000);
});
