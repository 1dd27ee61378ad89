// `orc mcp --http`: the MCP server over Streamable HTTP (src/mcp/http.ts) until SIGINT or SIGTERM; loopback by
// default, anything else only with --tls or --insecure-plain-http; a bearer token generated or from ORC_MCP_TOKEN.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SandboxTls } from '../../sandbox/index.js';
import { isLoopbackHost } from '../../contract/keys.js';
import { isLinkLocal, isWildcard, listenHost, machineNames } from '../../lib/hosts.js';
import type { Context } from '../context.js';
import { EnvironmentError, InterruptedError, UsageError } from '../../exit/errors.js';
import type { FlagsOf } from '../define.js';
import type { mcp as def } from './command.js';
import { STDIO_LIMIT_MIB } from './serve.js';

const MAX_SESSIONS = 32;
const IDLE_MS = 30 * 60_000;
/** Requests one session may hold open at once (each a response, most an event stream). */
const MAX_STREAMS = 16;

export async function serveHttp(
  ctx: Context,
  flags: FlagsOf<typeof def>,
  newServer: () => McpServer,
  serving: string,
): Promise<number> {
  const host = listenHost(flags.host ?? '127.0.0.1');
  if (host === null) {
    const problem = new UsageError(`--host ${JSON.stringify(flags.host)} is not a host name or an IP address`);
    problem.field = '--host';
    throw problem;
  }
  if (!isLoopbackHost(host) && !flags.tls && !flags.insecurePlainHttp)
    throw new UsageError(
      `--host ${host} is reachable from other machines: add --tls (https), or --insecure-plain-http to send the token in the clear`,
    );
  const fromEnv = givenToken(ctx.env.ORC_MCP_TOKEN);
  const token = fromEnv || randomBytes(32).toString('base64url');
  const tls = flags.tls ? await certificate(ctx, host) : undefined;
  const { serveMcpHttp } = await import('../../mcp/http.js');
  // Listen for the signals before saying the URL: a script may send one as soon as it reads it.
  const stopped = new Promise<void>((done) => ctx.signal.addEventListener('abort', () => done(), { once: true }));
  const port = flags.port ?? 0;
  const server = await serveMcpHttp({
    host,
    port,
    token,
    ...(tls ? { tls } : {}),
    clock: ctx.clock,
    newServer,
    maxSessions: flags.maxSessions ?? MAX_SESSIONS,
    idleMs: flags.idleTimeout ?? IDLE_MS,
    maxStreams: MAX_STREAMS,
    maxBodyBytes: STDIO_LIMIT_MIB << 20,
  }).catch((err: unknown) => explainListenError(err, host, port));
  announce(ctx, server.url, fromEnv ? undefined : token, tls);
  ctx.io.info(`orc mcp: serving ${serving} at ${server.url}; stop with Ctrl-C`);
  if (isWildcard(host)) ctx.io.info(`orc mcp: listening on every interface of this machine (--host ${host})`);
  await stopped;
  const open = server.sessions();
  await server.close();
  throw new InterruptedError(`${String(ctx.signal.reason)}: orc mcp stopped; ${open} session(s) closed`);
}

/** ORC_MCP_TOKEN as given (undefined when unset or empty), refused when no client could send it as
 * `Authorization: Bearer <token>` (a character not visible ASCII: whitespace, a control character, `€`; the
 * header's token68 is a subset) or when it is too short to be a secret. */
function givenToken(token: string | undefined): string | undefined {
  if (!token) return undefined;
  let why: string | undefined;
  if (/[^\x21-\x7e]/.test(token))
    why =
      'it has a character that is not visible ASCII (whitespace, a control character, é, €…), which a Bearer header cannot carry';
  else if (token.length < 16) why = `it is shorter than 16 characters (${token.length})`;
  if (!why) return token;
  const problem = new UsageError(`ORC_MCP_TOKEN will not do: ${why}`, 'Set a random one: openssl rand -hex 32');
  problem.field = 'ORC_MCP_TOKEN';
  throw problem;
}

/** Why it could not listen, as `orc sandbox start` says it (the sandbox's listenProblem, loaded only then),
 * naming the flag at fault; anything else as it came. */
async function explainListenError(err: unknown, host: string, port: number): Promise<never> {
  const { listenProblem } = await import('../../sandbox/index.js');
  const listen = listenProblem(err, { host, port });
  if (!listen) throw err;
  const problem = new EnvironmentError(listen.message, listen.hint);
  problem.field = `--${listen.option}`;
  throw problem;
}

/** The URL (and a generated token, shown this once) on stdout; how a client uses them on stderr. */
function announce(ctx: Context, url: string, token: string | undefined, tls: SandboxTls | undefined): void {
  const caFile = tls?.caFile;
  if (ctx.io.json)
    ctx.io.streams.stdout.write(
      ctx.io.jsonLine({ url, ...(token ? { token } : {}), ...(caFile ? { ca_file: caFile } : {}) }),
    );
  else {
    ctx.io.out(url);
    if (token) ctx.io.out(token);
  }
  ctx.io.info(
    `a client sends every request to ${url} with the header Authorization: Bearer <${token ? 'the token above' : 'ORC_MCP_TOKEN'}>`,
  );
  // (a CA made anew, as when this machine's addresses changed, breaks every client that trusted the last one)
  if (tls?.newCa)
    ctx.io.info(
      `a new CA was made for this server's names (${caFile}): a client that trusted the one before trusts this one anew`,
    );
  if (caFile) ctx.io.info(`https with orc's private CA: trust ${caFile} (NODE_EXTRA_CA_CERTS=${caFile})`);
}

/** A certificate for `host` and loopback (on every interface: this machine's addresses too, as a client on
 * another machine reaches it by one, but for IPv6 link-local ones: a name the certificate had not makes a new
 * CA, and they come and go with the interface), signed by the private CA `orc sandbox start --tls` makes, kept in the
 * config folder's mcp/tls. */
async function certificate(ctx: Context, host: string) {
  const { sandboxTls } = await import('../../sandbox/index.js');
  const names = isWildcard(host) ? machineNames().filter((n) => !isLinkLocal(n)) : [host];
  return sandboxTls(join(ctx.configDir, 'mcp', 'tls'), names, ctx.clock.now());
}
