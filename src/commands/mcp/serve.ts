// `orc mcp`: picks the tools (--read-only, --tools, the live rule), then serves on stdin/stdout until the
// client closes them (stdout is the protocol's alone: every message of orc's goes to stderr), or with --http
// over Streamable HTTP (serve-http.ts).
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Transform } from 'node:stream';
import type { Context } from '../context.js';
import { EnvironmentError, UsageError } from '../../exit/errors.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { mcp as def } from './command.js';

/** The SDK's stdio transport's read buffer (STDIO_DEFAULT_MAX_BUFFER_SIZE); --http's body bound too. */
export const STDIO_LIMIT_MIB = 10;

export default async function serve(
  ctx: Context,
  _args: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  if (flags.listTools) {
    if (flags.http) throw new UsageError('--list-tools prints the tools and exits; --http serves them: give one');
    httpFlagsOnlyWithHttp(flags);
    return (await import('./list-tools.js')).default(ctx, flags);
  }
  if (!flags.http) httpFlagsOnlyWithHttp(flags);
  const [{ createServer, toolDefs, sandboxToolDefs }, { pickTools }, { StdioServerTransport }] = await Promise.all([
    import('../../mcp/server.js'),
    import('../../mcp/toolsets.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const target = await ctx.target();
  const api = await ctx.api(); // (no request yet: the client is made, nothing is sent)
  const root = resolve(flags.root ?? '.');
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--root: ${root} is not a folder`);
  const tools = pickTools([...toolDefs(api, ctx.clock, root), ...sandboxToolDefs(api)], flags, target.mode);
  if (flags.yesLiveDecisions && target.mode !== 'live')
    throw new UsageError(
      '--yes-live-decisions goes with --live: in test mode the agent decides gates without asking anyway',
    );
  const newServer = () =>
    createServer({ api, version: ctx.version, tools, askHuman: target.mode === 'live' && !flags.yesLiveDecisions });
  const serving = `${tools.length} tools (${target.mode} key, ${target.baseUrl})`;
  if (flags.http) return (await import('./serve-http.js')).serveHttp(ctx, flags, newServer, serving);
  const server = newServer();
  const input = wholeLines(ctx.io.streams.stdin, STDIO_LIMIT_MIB << 20);
  const transport = new StdioServerTransport(
    input as unknown as NodeJS.ReadStream,
    ctx.io.streams.stdout as NodeJS.WriteStream,
  );
  await serveUntilClosed(input, server, transport, () =>
    ctx.io.info(`orc mcp: serving ${serving} on stdio; stop with Ctrl-C or by closing stdin`),
  );
  return 0;
}

/** The flags of --http mean nothing on stdio: said rather than ignored. */
function httpFlagsOnlyWithHttp(flags: FlagsOf<typeof def>): void {
  const given = (['host', 'port', 'tls', 'insecurePlainHttp', 'maxSessions', 'idleTimeout'] as const).filter(
    (k) => flags[k] !== undefined && flags[k] !== false,
  );
  if (given.length)
    throw new UsageError(
      `${given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} ${given.length === 1 ? 'goes' : 'go'} with --http`,
    );
}

type ServerModule = typeof import('../../mcp/server.js');

/** Serves until the client closes stdin (or the transport closes); a request too large for the transport is
 * an error, not an end. */
async function serveUntilClosed(
  input: NodeJS.ReadableStream,
  server: ReturnType<ServerModule['createServer']>,
  transport: import('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport,
  serving: () => void,
): Promise<void> {
  // The SDK's transport closes itself when one request line outgrows its buffer (10 MiB): that is no
  // client hanging up, so it is said, and orc exits 1, rather than ending as if all were well.
  let overflow: Error | null = null;
  transport.onerror = (err) => {
    if (/exceeded maximum size/.test(err.message)) overflow = err;
  };
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    input.once('end', () => resolve());
  });
  await server.connect(transport);
  serving();
  await closed;
  await server.close().catch(() => {});
  if (overflow)
    throw new EnvironmentError(
      `orc mcp stopped: a request line was larger than the ${STDIO_LIMIT_MIB} MiB the MCP transport reads (${(overflow as Error).message})`,
      'Send smaller requests; the server has to be started again.',
    );
}

/**
 * stdin handed to the SDK's transport a whole line at a time. Its reader joins each chunk to what it holds and
 * searches all of it again for a line end, which for one long line is quadratic (a request line near the
 * 10 MiB bound cost seconds of copying); given whole lines it copies each once. Past `limit` bytes with no
 * line end, what is held goes on at once, so the SDK's own bound is still what refuses the line.
 */
function wholeLines(stdin: NodeJS.ReadableStream, limit: number): Transform {
  let held: Buffer[] = [];
  let size = 0;
  const hold = (chunk: Buffer) => {
    held = chunk.length ? [chunk] : [];
    size = chunk.length;
  };
  const lines = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const end = chunk.lastIndexOf(0x0a);
      if (end === -1) {
        held.push(chunk);
        size += chunk.length;
        if (size > limit) {
          this.push(Buffer.concat(held));
          hold(Buffer.alloc(0));
        }
      } else {
        this.push(Buffer.concat([...held, chunk.subarray(0, end + 1)]));
        hold(chunk.subarray(end + 1));
      }
      done();
    },
    flush(done) {
      if (size) this.push(Buffer.concat(held));
      done();
    },
  });
  // An error reading stdin goes on to the transport's error handler, as when it read stdin itself (pipe()
  // alone would leave it with no listener, and orc would crash with a stack).
  stdin.on('error', (err) => lines.destroy(err));
  return stdin.pipe(lines);
}
