// `orc mcp --list-tools`: the tools a client would see with the same flags, listed through a real MCP client over
// the SDK's in-memory transport (nothing sent to the service), and what that list costs a client in bytes.
import type { Context } from '../context.js';
import type { FlagsOf } from '../define.js';
import type { mcp as def } from './command.js';

export default async function listTools(ctx: Context, flags: FlagsOf<typeof def>): Promise<number> {
  const [{ createServer, toolDefs, sandboxToolDefs }, { pickTools, toolsetOf }, { Client }, { InMemoryTransport }] =
    await Promise.all([
      import('../../mcp/server.js'),
      import('../../mcp/toolsets.js'),
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/inMemory.js'),
    ]);
  const target = await ctx.target();
  const api = await ctx.api(); // (made, never called: listing sends nothing)
  const tools = pickTools([...toolDefs(api, ctx.clock), ...sandboxToolDefs(api)], flags, target.mode);
  const server = createServer({ api, version: ctx.version, tools });
  const client = new Client({ name: 'orc-list-tools', version: ctx.version });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const listed = await client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(listed));
    if (ctx.io.json) {
      ctx.io.writeJson({ tools: listed.tools, bytes });
      return 0;
    }
    for (const t of listed.tools)
      ctx.io.out(
        [
          t.name.padEnd(20),
          (toolsetOf(t.name) ?? '').padEnd(10),
          (t.annotations?.readOnlyHint ? 'read-only' : 'changes').padEnd(10),
          `${Buffer.byteLength(JSON.stringify(t))} bytes`,
        ].join(' '),
      );
    ctx.io.out(`${listed.tools.length} tools, ${bytes} bytes as tools/list sends them`);
    return 0;
  } finally {
    await client.close();
    await server.close();
  }
}
