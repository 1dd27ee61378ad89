// The built `orc mcp` as an agent meets it: the MCP SDK's own client over stdio, against a base URL, with a fresh
// config folder and nothing of this machine's environment but PATH and HOME.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { freshConfigDir, ORC_BIN } from './cli.js';

export async function connectMcp(
  baseUrl: string,
  o: { args?: string[]; env?: Record<string, string>; cwd?: string; name?: string } = {},
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ORC_BIN, 'mcp', ...(o.args ?? [])],
    ...(o.cwd ? { cwd: o.cwd } : {}),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ORC_CONFIG_DIR: freshConfigDir(),
      ORC_BASE_URL: baseUrl,
      ORC_NO_KEYCHAIN: '1',
      ...o.env,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: o.name ?? 'orc-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
