// `orc mcp` through the MCP SDK's own client over stdio, the built orc against a sandbox on port 0: the tools
// and their annotations, a whole run driven by tool calls, --read-only, --tools, the live rule, service
// errors as tool errors, resources, and progress notifications.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orc } from '../helpers/cli.js';
import { connectMcp } from '../helpers/mcp.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  // (1 h stages: a run here stays where it was made unless a test steps it, however busy the machine)
  sb = await startTestSandbox({ stageMs: 3_600_000, ipaMib: 1 });
});
afterAll(() => sb.close());

/** One server for the tests that need no flags of their own: each `orc mcp` loads the SDK anew. */
let shared: Client | undefined;
const sharedClient = async () => (shared ??= await connect());
afterAll(async () => shared?.close());

/** The folder the shared server runs in, so the one pull_artifacts writes into. */
const mcpRoot = mkdtempSync(join(tmpdir(), 'orc-mcp-root-'));

const connect = (args: string[] = [], env: Record<string, string> = {}) =>
  connectMcp(sb.url, { args, env, cwd: mcpRoot });

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };
const call = async (
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  extra: Parameters<Client['callTool']>[2] = {},
) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000, ...extra })) as ToolResult;
const ok = (r: ToolResult) => {
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return r.structuredContent;
};

describe('orc mcp', () => {
  it('lists every tool with its input schema, a description and the right annotations', async () => {
    const client = await sharedClient();
    try {
      const { tools } = await client.listTools();
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(Object.keys(byName).sort()).toEqual([
        'approve_gate',
        'cancel_run',
        'create_run',
        'get_artifact',
        'get_run',
        'get_scorecard',
        'get_spec',
        'list_artifacts',
        'list_gates',
        'list_runs',
        'pull_artifacts',
        'reject_gate',
        'update_spec',
        'wait_for_run',
      ]);
      for (const t of tools) {
        expect(t.description!.length, t.name).toBeGreaterThan(10);
        expect(t.inputSchema.type, t.name).toBe('object');
        // Every tool says what it answers; the SDK client checks each result against it (the tests below).
        expect(t.outputSchema?.type, t.name).toBe('object');
        expect(Object.keys(t.outputSchema?.properties ?? {}).length, t.name).toBeGreaterThan(0);
      }
      for (const name of [
        'list_runs',
        'get_run',
        'list_gates',
        'get_spec',
        'get_scorecard',
        'list_artifacts',
        'get_artifact',
        'wait_for_run',
      ])
        expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: true });
      for (const name of ['cancel_run', 'reject_gate'])
        expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(byName.update_spec!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
      expect(byName.reject_gate!.inputSchema.required).toEqual(expect.arrayContaining(['run_id', 'gate', 'notes']));
      expect((byName.get_run!.inputSchema.properties as any).run_id.description).toContain('run id');
      expect((byName.create_run!.inputSchema.properties as any).idempotency_key).toBeDefined();
    } finally {
      // (the shared server goes on to the next test)
    }
  });

  it('drives a whole run: create, wait, read and patch the spec, approve, reject brand with notes, approve the rest, scorecard, artifacts', async () => {
    // Its own sandbox, where a run moves only when the test steps it (1 h stages): each wait_for_run below has
    // its stream open before the run moves, so the progress it tells does not hang on how busy the machine is.
    const own = await startTestSandbox({ stageMs: 3_600_000, ipaMib: 1 });
    const client = await connectMcp(own.url, { cwd: mcpRoot });
    const step = async (id: string, how: { to: string } | { by: string }) =>
      expect((await own.call('POST', '/_sandbox/clock/advance', { run: id, ...how })).status).toBe(200);
    /** wait_for_run, the run stepped to `to` once the wait's stream is open; with `told`, first half a stage,
     * and on to `to` once that progress was told (the stream replays the run's history first, and a gate
     * in it is checked against the run as it is: had the run already reached `to`, the wait would end there). */
    const waitStepping = async (
      id: string,
      to: string,
      extra: Parameters<typeof call>[3] = {},
      told?: () => boolean,
    ) => {
      await until(() => own.openStreams() === 0, "the last wait's stream to close");
      const waiting = call(client, 'wait_for_run', { run_id: id }, extra);
      await until(() => own.openStreams() > 0, "wait_for_run's stream to open");
      if (told) {
        await step(id, { by: '30m' });
        await until(told, 'progress told of the stage stepped into');
      }
      await step(id, { to });
      return waiting;
    };
    try {
      const created = ok(
        await call(client, 'create_run', {
          mode: 'idea',
          idea: { pitch: 'A tide table for sailors', audience: 'sailors', monetization: 'paid' },
          idempotency_key: 'mcp-test-run-1',
        }),
      );
      const id = created.run.id as string;
      // The same key again makes nothing new.
      expect(
        ok(
          await call(client, 'create_run', {
            mode: 'idea',
            idea: { pitch: 'A tide table for sailors', audience: 'sailors', monetization: 'paid' },
            idempotency_key: 'mcp-test-run-1',
          }),
        ),
      ).toMatchObject({ run: { id }, replayed: true });

      const progress: Array<{ progress: number; message?: string }> = [];
      const idea = await waitStepping(id, 'gate:idea', {
        onprogress: (p) => progress.push(p as any),
        resetTimeoutOnProgress: true,
      });
      expect(ok(idea)).toMatchObject({
        outcome: 'gate_pending',
        gate: 'idea',
        deciding: { summary: { audience: 'sailors', monetization: 'paid' } },
      });
      expect(idea.content[0]!.text).toContain('Deciding the idea');
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
      expect(progress.some((p) => /0[12]_\w+ \d+%/.test(p.message ?? ''))).toBe(true);

      const spec = ok(await call(client, 'get_spec', { run_id: id })).spec;
      expect(spec.audience).toBe('sailors');
      expect(
        ok(await call(client, 'update_spec', { run_id: id, patch: { tagline: 'Know the sea', features: null } })).spec,
      ).toMatchObject({ tagline: 'Know the sea' });
      expect((await own.call('GET', `/v1/runs/${id}/spec`)).body).not.toHaveProperty('features');

      ok(await call(client, 'approve_gate', { run_id: id, gate: 'idea' }));
      const onward: Array<{ progress: number; message?: string }> = [];
      const stoodAt = (await own.call('GET', `/v1/runs/${id}`)).body.stage as string;
      const brand = ok(
        await waitStepping(
          id,
          'gate:brand',
          { onprogress: (p) => onward.push(p as any), resetTimeoutOnProgress: true },
          () => onward.length > 0,
        ),
      );
      expect(onward.length).toBeGreaterThan(0);
      expect(brand).toMatchObject({ outcome: 'gate_pending', gate: 'brand' });
      // A second call tells progress onward from where the run stood, never its history again.
      const positions = onward
        .map((p) => /^(\S+) (\d+)%$/.exec(p.message ?? '')!)
        .map((m) => [m[1]!, Number(m[2])] as const);
      for (const [stage] of positions) expect(stage >= stoodAt, `${stage} before ${stoodAt}`).toBe(true);
      for (let i = 1; i < positions.length; i++) {
        const [a, b] = [positions[i - 1]!, positions[i]!];
        expect(b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]), `${a.join(' ')} then ${b.join(' ')}`).toBe(true);
      }
      expect(brand.deciding.brand.palette.length).toBeGreaterThan(0);
      ok(await call(client, 'reject_gate', { run_id: id, gate: 'brand', notes: 'Warmer, please' }));
      expect(ok(await waitStepping(id, 'gate:brand'))).toMatchObject({
        outcome: 'gate_pending',
        gate: 'brand',
      });
      ok(await call(client, 'approve_gate', { run_id: id, gate: 'brand' }));
      const final = ok(await waitStepping(id, 'gate:final'));
      expect(final).toMatchObject({ outcome: 'gate_pending', gate: 'final' });
      expect(final.deciding.scorecard.score.total).toBe(100);
      ok(await call(client, 'approve_gate', { run_id: id, gate: 'final' }));
      expect(ok(await waitStepping(id, 'end'))).toMatchObject({
        outcome: 'ended',
        status: 'accepted',
      });

      const gates = ok(await call(client, 'list_gates', { run_id: id })).gates;
      expect(gates.find((g: any) => g.name === 'brand')).toMatchObject({ state: 'approved' });
      const card = await call(client, 'get_scorecard', { run_id: id });
      expect(ok(card).scorecard.score.total).toBe(100);
      expect(card.content[0]!.text).toMatch(/^Score \d+\/100/);

      // Every kind ready (the ipa is described a moment after its stage), then pulled.
      const allReady = async () =>
        ok(await call(client, 'list_artifacts', { run_id: id })).artifacts.every((k: any) => k.status === 'ready');
      await until(allReady, 'every artifact ready, as list_artifacts says');
      const dir = mkdtempSync(join(mcpRoot, 'pull-'));
      const pulled = ok(await call(client, 'pull_artifacts', { run_id: id, dir }));
      expect(pulled.files.length).toBe(15); // 4 JSON, the ipa, 5 screens at 2 sizes
      expect(readdirSync(dir).sort()).toEqual([
        'ipa',
        'metadata.json',
        'preflight.json',
        'scorecard.json',
        'screenshots',
        'spec.json',
      ]);
      expect(ok(await call(client, 'pull_artifacts', { run_id: id, dir, kinds: ['ipa'] })).files[0].state).toBe(
        'present',
      );

      // Only inside the folder the server writes into, and a file of the user's there is never replaced.
      const escape = `../../../..${mcpRoot}-escape`;
      for (const outside of [escape, tmpdir()]) {
        const refused = await call(client, 'pull_artifacts', { run_id: id, dir: outside });
        expect(refused.isError).toBe(true);
        expect(refused.content[0]!.text).toContain(`dir: ${JSON.stringify(outside)} is outside`);
      }
      expect(existsSync(`${mcpRoot}-escape`)).toBe(false);
      mkdirSync(join(mcpRoot, 'mine'));
      writeFileSync(join(mcpRoot, 'mine', 'spec.json'), 'my own notes\n');
      const kept = ok(await call(client, 'pull_artifacts', { run_id: id, dir: 'mine', kinds: ['spec', 'metadata'] }));
      expect(readFileSync(join(mcpRoot, 'mine', 'spec.json'), 'utf8')).toBe('my own notes\n');
      expect(kept.failed).toEqual([
        expect.objectContaining({ name: 'spec.json', error: expect.stringContaining('kept as it is') }),
      ]);
      expect(kept.files.map((f: any) => f.name)).toEqual(['metadata.json']);

      // Resources: the run with its gates, and its spec.
      const runRes = await client.readResource({ uri: `orc://runs/${id}` });
      expect(JSON.parse((runRes.contents[0] as { text: string }).text)).toMatchObject({
        run: { id, status: 'accepted' },
      });
      const specRes = await client.readResource({ uri: `orc://runs/${id}/spec` });
      expect(JSON.parse((specRes.contents[0] as { text: string }).text).tagline).toBe('Know the sea');
      const listed = await client.listResources();
      expect(listed.resources.map((r) => r.uri)).toContain(`orc://runs/${id}`);
    } finally {
      await client.close();
      await own.close();
    }
  }, 60_000);

  it('a service error is a tool error with its code, and the server goes on', async () => {
    const client = await sharedClient();
    try {
      const missing = await call(client, 'get_run', { run_id: 'run_nope' });
      expect(missing.isError).toBe(true);
      expect(missing.content[0]!.text).toMatch(/^run_not_found: /);
      expect(missing.content[0]!.text).toMatch(/\[request req_\w+\]$/); // the request id, for a report
      expect(missing.structuredContent).toBeUndefined(); // structured content is only ever the tool's result
      const run = await sb.createRun('Not at a gate yet');
      const early = await call(client, 'approve_gate', { run_id: run.id, gate: 'final' });
      expect(early.isError).toBe(true);
      expect(early.content[0]!.text).toMatch(/^gate_not_pending: /);
      const emptyNotes = await call(client, 'reject_gate', { run_id: run.id, gate: 'idea', notes: '   ' });
      expect(emptyNotes.isError).toBe(true);
      const timedOut = ok(
        await call(client, 'wait_for_run', { run_id: (await sb.createRun('Slow #fail')).id, timeout_s: 1 }),
      );
      expect(timedOut).toMatchObject({ outcome: 'timeout', run: { status: 'running', stage: '01_intake' } });
      expect(ok(await call(client, 'list_runs', { limit: 1 })).runs).toHaveLength(1);
    } finally {
      // (the shared server goes on to the next test)
    }
  }, 30_000);

  it('--read-only offers no write tools; --tools narrows; an unknown tool name is exit 2', async () => {
    const ro = await connect(['--read-only']);
    try {
      const names = (await ro.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual([
        'get_artifact',
        'get_run',
        'get_scorecard',
        'get_spec',
        'list_artifacts',
        'list_gates',
        'list_runs',
        'wait_for_run',
      ]);
      const refused = await ro
        .callTool({ name: 'create_run', arguments: { mode: 'idea' } })
        .catch((e: Error) => ({ isError: true, content: [{ type: 'text', text: e.message }] }));
      expect((refused as ToolResult).isError).toBe(true);
    } finally {
      await ro.close();
    }
    const narrow = await connect(['--tools', 'list_runs,get_run']);
    try {
      expect((await narrow.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_run', 'list_runs']);
    } finally {
      await narrow.close();
    }
    const bad = await orc(['mcp', '--tools', 'list_runs,drop_tables'], { env: { ORC_BASE_URL: sb.url } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('"drop_tables"');
  }, 30_000);

  it("a request line over the transport's 10 MiB is said on stderr, exit 1, never a silent exit 0", async () => {
    const r = await orc(['mcp'], {
      env: { ORC_BASE_URL: sb.url },
      input: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'a'.repeat(11 << 20)}"}}\n`,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('orc mcp stopped: a request line was larger than the 10 MiB the MCP transport reads');
  });

  it('--sandbox-tools adds advance_clock, trigger_event and reset_sandbox, which steer the sandbox for real', async () => {
    const own = await startTestSandbox({ stageMs: 60_000 });
    const client = await connect(['--sandbox-tools'], { ORC_BASE_URL: own.url });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['advance_clock', 'trigger_event', 'reset_sandbox']));
      const failed = ok(
        await call(client, 'trigger_event', { kind: 'run.failed', stage: '06_qa', error: 'qa_failed: crash' }),
      );
      expect(failed.event).toMatchObject({
        type: 'run.failed',
        data: { stage: '06_qa', error: { code: 'qa_failed', message: 'crash' } },
      });
      const id = (await own.createRun('Parked by an agent')).id;
      const parked = ok(await call(client, 'advance_clock', { run_id: id, to: 'gate:brand' }));
      expect(parked.run).toMatchObject({ id, gate_pending: 'brand' });
      ok(await call(client, 'reset_sandbox', {}));
      expect((await own.call('GET', '/v1/runs')).body.data).toEqual([]);
    } finally {
      await client.close();
      await own.close();
    }
    const live = await orc(['mcp', '--sandbox-tools', '--live'], {
      env: { ORC_BASE_URL: 'https://api.example.invalid', ORC_API_KEY: 'sk_live_agent_test_0123456789' },
    });
    expect(live.exitCode).toBe(2);
    expect(live.stderr).toContain('--sandbox-tools');
  });

  it('--yes-live-decisions goes with --live only (exit 2 in test mode)', async () => {
    const r = await orc(['mcp', '--yes-live-decisions'], { env: { ORC_BASE_URL: sb.url } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--yes-live-decisions goes with --live');
  });

  it('orc mcp --help prints the client configuration', async () => {
    const r = await orc(['mcp', '--help']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(/\{\n  "mcpServers"[\s\S]*?\n\}/.exec(r.stdout)![0])).toEqual({
      mcpServers: { orc: { command: 'orc', args: ['mcp'] } },
    });
    // The tools the help names under the default toolsets are the tools the server offers, in order (a name
    // the tool table does not have is passed over), and the size it gives is theirs.
    const named = [...r.stdout.matchAll(/^ {2}(runs|gates|spec|artifacts) +(.+)$/gm)].flatMap((m) => m[2]!.split(', '));
    const client = await sharedClient();
    const offered = (await client.listTools()).tools.map((t) => t.name);
    expect(named.filter((n) => offered.includes(n))).toEqual(offered);
    const size = /default runs,gates,spec,artifacts: (\d+) tools,\s+([\d,]+) bytes/.exec(r.stdout)!;
    const listed = await orc(['mcp', '--list-tools', '--json'], { env: { ORC_BASE_URL: sb.url } });
    expect(Number(size[1])).toBe(offered.length);
    expect(Number(size[2]!.replace(/,/g, ''))).toBe(JSON.parse(listed.stdout).bytes);
  });
});
