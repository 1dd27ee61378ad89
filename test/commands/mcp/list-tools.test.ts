// `orc mcp --list-tools`: the tools an MCP client sees with --toolsets, --read-only, --tools and --sandbox-tools,
// in one fixed order, and their size as tools/list sends them. In process; nothing is sent to the service.
import { describe, expect, it } from 'vitest';
import { runOrc } from '../../helpers/run.js';

const ENV = { ORC_BASE_URL: 'http://127.0.0.1:9', ORC_API_KEY: 'sk_test_listtools_0123456789' };
type Listed = { tools: Array<{ name: string; annotations?: { readOnlyHint?: boolean } }>; bytes: number };

async function listed(flags: string[]): Promise<Listed> {
  const r = await runOrc(['mcp', '--list-tools', '--json', ...flags], { env: ENV });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed;
}
const names = async (flags: string[]) => (await listed(flags)).tools.map((t) => t.name);

const RUNS = ['list_runs', 'get_run', 'create_run', 'cancel_run', 'wait_for_run'];
const GATES = ['list_gates', 'approve_gate', 'reject_gate'];
const SPEC = ['get_spec', 'update_spec', 'get_scorecard'];
const WEBHOOKS = ['list_webhooks', 'add_webhook', 'remove_webhook', 'list_deliveries', 'redeliver_delivery'];

describe('orc mcp --list-tools', () => {
  it('by default offers runs, gates, spec and artifacts, in that order', async () => {
    const all = await names([]);
    expect(all.slice(0, RUNS.length + GATES.length + SPEC.length)).toEqual([...RUNS, ...GATES, ...SPEC]);
    expect(all.slice(RUNS.length + GATES.length + SPEC.length)).toEqual(
      expect.arrayContaining(['list_artifacts', 'pull_artifacts']),
    );
    for (const name of [...WEBHOOKS, 'advance_clock']) expect(all).not.toContain(name);
  });

  it('--toolsets webhooks offers the webhook tools alone; the order is fixed whatever the flag says', async () => {
    expect(await names(['--toolsets', 'webhooks'])).toEqual(WEBHOOKS);
    expect(await names(['--toolsets', 'spec,webhooks,runs'])).toEqual([...RUNS, ...SPEC, ...WEBHOOKS]);
    expect(await names(['--toolsets', 'spec', '--sandbox-tools'])).toEqual([
      ...SPEC,
      'advance_clock',
      'trigger_event',
      'reset_sandbox',
    ]);
  });

  it('--read-only lists no tool that changes anything; with --toolsets runs, the run reads', async () => {
    expect(await names(['--toolsets', 'runs', '--read-only'])).toEqual(['list_runs', 'get_run', 'wait_for_run']);
    for (const flags of [['--read-only'], ['--read-only', '--toolsets', 'runs,gates,spec,artifacts,webhooks']]) {
      const { tools } = await listed(flags);
      expect(tools.length).toBeGreaterThan(3);
      for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    }
  });

  it('--tools alone picks from every toolset but sandbox; with --toolsets, within those', async () => {
    expect(await names(['--tools', 'get_spec,list_runs'])).toEqual(['list_runs', 'get_spec']);
    expect(await names(['--tools', 'list_webhooks,get_run'])).toEqual(['get_run', 'list_webhooks']);
    const sandbox = await runOrc(['mcp', '--list-tools', '--tools', 'advance_clock'], { env: ENV });
    expect(sandbox.exitCode).toBe(2);
    expect(sandbox.stderr).toContain('"advance_clock"');
    const r = await runOrc(['mcp', '--list-tools', '--toolsets', 'runs', '--tools', 'list_webhooks'], { env: ENV });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('"list_webhooks"');
    expect(r.stderr).toContain('--toolsets');
  });

  it("says --http's flags mean nothing to it rather than ignoring them (exit 2)", async () => {
    const r = await runOrc(['mcp', '--list-tools', '--port', '8931', '--max-sessions', '4'], { env: ENV });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--port, --max-sessions go with --http');
    const both = await runOrc(['mcp', '--list-tools', '--http', '--port', '8931'], { env: ENV });
    expect(both.exitCode).toBe(2);
    expect(both.stdout).toBe('');
    expect(both.stderr).toContain('--list-tools prints the tools and exits; --http serves them');
  });

  it('an unknown toolset is a usage error naming --toolsets and the valid ones (exit 2)', async () => {
    const r = await runOrc(['mcp', '--list-tools', '--toolsets', 'runs,repos'], { env: ENV });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--toolsets');
    expect(r.stderr).toContain('"repos"');
    expect(r.stderr).toContain('runs, gates, spec, artifacts, webhooks, sandbox');
  });

  it('the sandbox toolset never goes with a live key (exit 2), whichever flag asks for it', async () => {
    const live = { ORC_BASE_URL: 'https://api.example.invalid', ORC_API_KEY: 'sk_live_listtools_0123456789' };
    for (const flags of [['--toolsets', 'runs,sandbox'], ['--sandbox-tools']]) {
      const r = await runOrc(['mcp', '--list-tools', '--live', ...flags], { env: live });
      expect(r.exitCode, flags.join(' ')).toBe(2);
      expect(r.stderr).toContain('--toolsets sandbox');
    }
    expect(await names(['--toolsets', 'sandbox'])).toEqual(['advance_clock', 'trigger_event', 'reset_sandbox']);
  });

  it('in text: a line a tool (name, toolset, read-only or changes, bytes), then the total', async () => {
    const json = await listed(['--toolsets', 'runs']);
    const r = await runOrc(['mcp', '--list-tools', '--toolsets', 'runs'], { env: ENV });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(RUNS.length + 1);
    expect(lines[0]).toMatch(/^list_runs\s+runs\s+read-only\s+\d+ bytes$/);
    expect(lines[2]).toMatch(/^create_run\s+runs\s+changes\s+\d+ bytes$/);
    expect(lines.at(-1)).toBe(`${RUNS.length} tools, ${json.bytes} bytes as tools/list sends them`);
  });
});
