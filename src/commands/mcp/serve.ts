// `orc mcp`: picks the tools (--read-only, --tools, the live rule), then serves on stdin/stdout until the
// client closes them. stdout is the protocol's alone: every message of orc's goes to stderr.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { ArgsOf, FlagsOf } from '../spec.js';
import type { mcp as spec } from './command.js';

const LIVE_GUARDED = ['cancel_run', 'reject_gate'];

export default async function serve(ctx: Context, _args: ArgsOf<typeof spec>, flags: FlagsOf<typeof spec>): Promise<number> {
  const [{ createServer, TOOL_NAMES, READ_TOOLS }, { StdioServerTransport }] = await Promise.all([import('../../mcp/server.js'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
  const named = flags.tools === undefined ? null : [...new Set(flags.tools.split(',').map((t) => t.trim()).filter(Boolean))];
  if (named) {
    const unknown = named.filter((t) => !(TOOL_NAMES as readonly string[]).includes(t));
    if (unknown.length || named.length === 0) throw new UsageError(`--tools: ${unknown.length ? `unknown ${unknown.map((t) => JSON.stringify(t)).join(', ')}` : 'name at least one'}; the tools: ${TOOL_NAMES.join(', ')}`);
  }
  const target = await ctx.target();
  let tools: string[] = named ?? [...TOOL_NAMES];
  if (flags.readOnly) tools = tools.filter((t) => READ_TOOLS.has(t));
  // A live server does not cancel or reject unless it was told to, by name.
  if (target.mode === 'live') tools = tools.filter((t) => !LIVE_GUARDED.includes(t) || named?.includes(t));
  if (tools.length === 0) throw new UsageError('no tools left to offer: --read-only keeps only reads, and none of --tools is one');
  const api = await ctx.api();
  const server = createServer({ api, clock: ctx.clock, version: ctx.version, tools });
  const transport = new StdioServerTransport(ctx.io.streams.stdin as NodeJS.ReadStream, ctx.io.streams.stdout as NodeJS.WriteStream);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    ctx.io.streams.stdin.once?.('end', () => resolve());
  });
  await server.connect(transport);
  ctx.io.info(`orc mcp: serving ${tools.length} tools on stdio (${target.mode} key, ${target.baseUrl}); stop with Ctrl-C or by closing stdin`);
  await closed;
  await server.close().catch(() => {});
  return 0;
}
