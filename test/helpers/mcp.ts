// orc's MCP server as an agent meets it: the built `orc mcp` with the MCP SDK's own client over stdio, against a
// base URL, with a fresh config folder and nothing of this machine's environment but PATH and HOME; or the server
// in this process with the SDK's client over its in-memory transport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { type Api, createApi } from '../../src/api/index.js';
import { type Clock, systemClock } from '../../src/lib/clock.js';
import { createServer, sandboxToolDefs, type ToolDef, toolDefs } from '../../src/mcp/server.js';
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

/**
 * orc's MCP server in this process, as `orc mcp` builds it, with the SDK's client over its in-memory transport:
 * aimed at `baseUrl` with `apiKey`; `tools` picks from every tool there is (default: toolDefs, as the stdio
 * server's default toolsets and webhooks); `tasks` makes a client that supports tasks; `askHuman` and `elicit`
 * a live server whose gate decisions the client answers; `clock` the client's and the tools' clock.
 */
export async function inProcessMcp(o: {
  baseUrl: string;
  apiKey: string;
  tools?: (all: ToolDef[]) => ToolDef[];
  tasks?: boolean;
  askHuman?: boolean;
  elicit?: (message: string) => ElicitResult;
  clock?: Clock;
}): Promise<{ client: Client; api: Api; close: () => Promise<void> }> {
  const clock = o.clock ?? systemClock;
  const api = createApi({ baseUrl: o.baseUrl, apiKey: o.apiKey, userAgent: 'test', clock });
  const all = [...toolDefs(api, clock), ...sandboxToolDefs(api)];
  const tools = o.tools ? o.tools(all) : toolDefs(api, clock);
  const server = createServer({ api, version: 'test', tools, ...(o.askHuman ? { askHuman: true } : {}) });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const capabilities = {
    ...(o.tasks ? { tasks: { requests: { tools: { call: {} } } } } : {}),
    ...(o.elicit ? { elicitation: {} } : {}),
  };
  const client = new Client({ name: 'test', version: '1' }, { capabilities: capabilities as never });
  const elicit = o.elicit;
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (req) => elicit(req.params.message));
  await client.connect(clientSide);
  return {
    client,
    api,
    close: async () => {
      await Promise.all([client.close(), server.close()]);
    },
  };
}
