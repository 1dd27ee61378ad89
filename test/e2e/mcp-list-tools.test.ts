// The built orc: what `orc mcp --list-tools --json` says a client sees is what an MCP client over stdio sees
// with the same flags (the tools, in order, and the bytes of their tools/list), and --read-only leaves a client
// no tool that changes anything. Nothing here reaches a service: listing sends no request.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { orc } from '../helpers/cli.js';
import { connectMcp } from '../helpers/mcp.js';

const NOWHERE = 'http://127.0.0.1:9';

async function seen(args: string[]): Promise<Awaited<ReturnType<Client['listTools']>>> {
  const client = await connectMcp(NOWHERE, { args });
  try {
    return await client.listTools();
  } finally {
    await client.close();
  }
}

describe('orc mcp --list-tools', () => {
  it('--json gives the tools a stdio client sees, and their tools/list size in bytes', async () => {
    for (const args of [[], ['--toolsets', 'webhooks,runs', '--tools', 'list_runs,get_run,add_webhook']]) {
      const [client, r] = await Promise.all([
        seen(args),
        orc(['mcp', '--list-tools', '--json', ...args], { env: { ORC_BASE_URL: NOWHERE } }),
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      const listed = JSON.parse(r.stdout);
      expect(listed.tools).toEqual(client.tools);
      expect(listed.bytes).toBe(Buffer.byteLength(JSON.stringify(client)));
    }
  });

  it('a client of --read-only sees only tools marked read-only, in toolset order', async () => {
    const { tools } = await seen(['--read-only', '--toolsets', 'webhooks,spec,runs']);
    expect(tools.map((t) => t.name)).toEqual([
      'list_runs',
      'get_run',
      'wait_for_run',
      'get_spec',
      'get_scorecard',
      'list_webhooks',
      'list_deliveries',
    ]);
    for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
  });
});
