// `orc mcp --http`: the MCP server over Streamable HTTP, one McpServer and one SDK transport per session, behind
// what a server a browser can reach needs: Host and Origin checked (DNS rebinding), a bearer token, and bounds
// on bodies, sessions, open requests and idle time. A client that goes away mid-request has its request
// cancelled; a session that ends (DELETE, idle, stop) closes its server, which ends its calls and tasks.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer as httpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as httpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Clock } from '../lib/clock.js';
import { ownHosts, urlHost } from '../lib/hosts.js';
import { liveWaits } from './server.js';

export interface McpHttpOptions {
  host: string;
  port: number;
  token: string;
  tls?: { cert: string; key: string };
  clock: Clock;
  /** A new server for each session. */
  newServer: () => McpServer;
  maxSessions: number;
  /** A session with no request open for this long is closed. */
  idleMs: number;
  /** Requests (and so event streams) one session may hold open at once. */
  maxStreams: number;
  maxBodyBytes: number;
}

export interface McpHttp {
  readonly url: string;
  /** Sessions open now. */
  sessions(): number;
  /** Ends every session, then the listener. */
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  open: number;
  /** When a request of it last began or ended (the clock's ms): the least recent idle one gives way at the cap. */
  last: number;
  disarm: () => void;
}

type Rpc = { jsonrpc: '2.0'; id?: string | number; method?: string };

export async function serveMcpHttp(o: McpHttpOptions): Promise<McpHttp> {
  const sessions = new Sessions(o);
  const listener: Server = o.tls ? httpsServer({ cert: o.tls.cert, key: o.tls.key }) : httpServer();
  const guard = guardOf(o, listener);
  listener.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!guard(req, res)) return;
    sessions.handle(req, res).catch(() => {
      if (!res.headersSent) rpcError(res, 500, -32603, 'internal error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(o.port, o.host, () => resolve());
  });
  const { port } = listener.address() as AddressInfo;
  return {
    url: `${o.tls ? 'https' : 'http'}://${urlHost(o.host)}:${port}/mcp`,
    sessions: () => sessions.count(),
    async close() {
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      await sessions.closeAll();
      listener.closeAllConnections();
      await closed;
    },
  };
}

/** The checks before anything else: the Host and Origin (403, before the token: a rebinding page learns
 * nothing), the token (401), the path (404). Answers false when it answered. */
function guardOf(o: McpHttpOptions, listener: Server): (req: IncomingMessage, res: ServerResponse) => boolean {
  const own = ownHosts(o.host, () => (listener.address() as AddressInfo | null)?.port ?? 0, o.tls?.cert);
  const hostOk = (h: string | undefined) => own(h && !/:\d+$/.test(h) ? `${h}:0` : h, true);
  const originOk = (origin: string) => {
    const m = /^https?:\/\/([^/]+)$/i.exec(origin);
    return m !== null && hostOk(m[1]);
  };
  const digest = (s: string) => createHash('sha256').update(s).digest();
  const want = digest(o.token);
  return (req, res) => {
    const origin = req.headers.origin;
    if (!hostOk(req.headers.host) || (origin !== undefined && !originOk(origin))) {
      answer(res, 403, { error: 'forbidden', message: 'this Host or Origin is not one orc mcp serves' });
      return false;
    }
    const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), want)) {
      const message = 'send the token orc mcp --http printed (or ORC_MCP_TOKEN) as Authorization: Bearer <token>';
      answer(res, 401, { error: 'unauthorized', message }, { 'WWW-Authenticate': 'Bearer' });
      return false;
    }
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
      answer(res, 404, { error: 'not_found', message: 'orc mcp serves /mcp only' });
      return false;
    }
    return true;
  };
}

/** The sessions: made by an initialize, found by their Mcp-Session-Id, ended by DELETE, idle time or close. */
class Sessions {
  private readonly all = new Set<Session>();
  private readonly byId = new Map<string, Session>();

  constructor(private readonly o: McpHttpOptions) {}

  count(): number {
    return this.all.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? this.byId.get(id) : undefined;
    if (req.method !== 'POST') {
      if (req.method !== 'GET' && req.method !== 'DELETE') {
        const message = `orc mcp answers POST, GET and DELETE at /mcp, not ${req.method}`;
        return answer(res, 405, { error: 'method_not_allowed', message }, { Allow: 'GET, POST, DELETE' });
      }
      if (!session) return noSession(res, id);
      return this.through(session, req, res);
    }
    const body = await readRpc(req, res, this.o.maxBodyBytes);
    if (body === undefined) return;
    if (session) return this.through(session, req, res, body);
    if (id !== undefined || !messages(body).some((m) => m.method === 'initialize')) return noSession(res, id);
    if (this.all.size >= this.o.maxSessions && !this.makeRoom())
      return rpcError(
        res,
        503,
        -32000,
        `orc mcp holds ${this.o.maxSessions} sessions, its most (--max-sessions), each with a request open or a wait running`,
      );
    return this.open(req, res, body);
  }

  /** At the cap, the least recently active session with no request open and no wait_for_run running (a task's
   * wait works with no request open) is closed for a new one: a client may go without a DELETE (the SDK's
   * close() sends none), and its session would hold its place until idle. False when there is none. */
  private makeRoom(): boolean {
    let oldest: Session | undefined;
    for (const s of this.all)
      if (s.open === 0 && liveWaits(s.server) === 0 && (!oldest || s.last < oldest.last)) oldest = s;
    if (oldest) void this.end(oldest);
    return oldest !== undefined;
  }

  private async open(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = this.o.newServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.byId.set(id, s),
    });
    const s: Session = { transport, server, open: 0, last: this.o.clock.now(), disarm: () => {} };
    transport.onclose = () => this.forget(s);
    this.all.add(s);
    await server.connect(transport);
    await this.through(s, req, res, body);
    if (!transport.sessionId) await this.end(s);
  }

  /** One request of a session; a client that goes before its answer has the requests it sent cancelled
   * (no event store: what it was sent could never reach it). */
  private async through(s: Session, req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (s.open >= this.o.maxStreams)
      return rpcError(res, 429, -32000, `this session holds ${this.o.maxStreams} requests open, its most`);
    s.open++;
    s.last = this.o.clock.now();
    s.disarm();
    res.once('close', () => {
      s.open--;
      s.last = this.o.clock.now();
      if (!res.writableFinished) for (const m of messages(body)) cancel(s, m);
      this.arm(s);
    });
    await s.transport.handleRequest(req, res, body);
  }

  private arm(s: Session): void {
    if (s.open > 0 || !this.all.has(s)) return;
    s.disarm();
    s.disarm = this.o.clock.timer(this.o.idleMs, () => void this.end(s), { background: true });
  }

  private forget(s: Session): void {
    s.disarm();
    this.all.delete(s);
    if (s.transport.sessionId) this.byId.delete(s.transport.sessionId);
  }

  /** Closing the server closes its transport: calls in flight are aborted, its tasks cancelled. */
  private async end(s: Session): Promise<void> {
    this.forget(s);
    await s.server.close().catch(() => {});
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.all].map((s) => this.end(s)));
  }
}

/** What the client sent, as the transport's own cancel notification would (the SDK aborts the handler). */
function cancel(s: Session, m: Rpc): void {
  if (m.method === undefined || m.id === undefined) return;
  const params = { requestId: m.id, reason: 'the client went away' };
  s.transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
}

function messages(body: unknown): Rpc[] {
  return body === undefined ? [] : ((Array.isArray(body) ? body : [body]) as Rpc[]);
}

/** The body as JSON-RPC, or undefined once the error is answered: 413 past the bound, -32700 for what is not
 * JSON, -32600 for JSON that is not JSON-RPC 2.0. */
async function readRpc(req: IncomingMessage, res: ServerResponse, max: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      rpcError(res, 413, -32600, `the request body is over ${max >> 20} MiB, the most orc mcp reads`);
      req.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
  }
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0 || !list.every(isRpc))
    return rpcError(res, 400, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
  return body;
}

function isRpc(m: unknown): boolean {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  const r = m as Record<string, unknown>;
  return r.jsonrpc === '2.0' && (typeof r.method === 'string' || 'result' in r || 'error' in r);
}

/** As the SDK answers: 400 without a session id, 404 for one that is not (or no longer) a session's. */
function noSession(res: ServerResponse, id: string | string[] | undefined): void {
  if (id === undefined) return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
  return rpcError(res, 404, -32001, 'Session not found');
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): undefined {
  answer(res, status, { jsonrpc: '2.0', id: null, error: { code, message } });
  return undefined;
}

function answer(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}
