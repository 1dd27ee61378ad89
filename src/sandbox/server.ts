// The sandbox's HTTP front: auth, rate limits, idempotency and the routes over node:http, then shutdown.
// The parts live beside it: routes.ts (the API as a table), file-route.ts (signed files), describer.ts
// (artifact descriptions), body.ts (input limits), router.ts, idempotency.ts, rate-limit.ts, sse-hub.ts.
import { randomBytes } from 'node:crypto';
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sleep, systemClock, type Clock } from '../lib/clock.js';
import { SANDBOX_DEFAULT_KEY, redactKey } from '../contract/keys.js';
import { useEnglishMessages } from '../lib/zod-messages.js';
import { KNOBS } from '../contract/sandbox-knobs.js';
import { traceIdOf } from '../contract/trace.js';
import { Retention } from './retention.js';
import { Artifacts } from './artifacts.js';
import { readJsonBody } from './body.js';
import { adminRoutes, type AdminHandler } from './admin.js';
import { ConsoleDoor, defaultConsoleDir } from './console.js';
import { Faults, Journal } from './control.js';
import { Describer } from './describer.js';
import { serveFile } from './file-route.js';
import { DISK_FULL_RETRY_S, Failure, storageFailure } from './failure.js';
import { ownHosts } from '../lib/hosts.js';
import { Idempotency, type Reply } from './idempotency.js';
import { lockDataFolder } from './lock.js';
import { clockNotBefore } from './manual-clock.js';
import { RateLimiter } from './rate-limit.js';
import { Router, segments, type Route, type RouteMatch } from './router.js';
import { apiRoutes, type Call, type Handler } from './routes.js';
import { SandboxService } from './service.js';
import { SseHub } from './sse-hub.js';
import { STREAM_BACKLOG_BYTES } from './sse-writer.js';
import { Store } from './store.js';
import { WebhookDispatcher, type DispatcherOptions } from './webhooks.js';

export interface SandboxOptions {
  host: string;
  port: number;
  apiKey: string;
  stageMs: number;
  signedUrlTtl: number;
  retryBaseMs: number;
  /** Requests per second per key; 0 turns the limit off. */
  rateLimit: number;
  seed: number;
  /** A SQLite file, or ':memory:'. */
  dataPath: string;
  keepaliveMs: number;
  /** How far behind an event stream's reader may fall (bytes it has not taken) before it is dropped. */
  streamBacklogBytes?: number;
  version: string;
  /** How long a request body may take to arrive after its headers (CONTRACT.md: 30 s). */
  bodyTimeoutMs: number;
  /** The size of a generated ipa, in MiB. */
  ipaMib: number;
  /** A connection must send a request's headers within this long (ms), else it is closed. */
  headersTimeoutMs: number;
  /** Event streams open at once; past that a new one is answered 503 with Retry-After. */
  maxEventStreams: number;
  /** How many requests and delivery attempts the journal keeps (`orc sandbox logs`). */
  journalSize: number;
  /** How many webhook deliveries are kept, the newest (retention.ts). */
  keepDeliveries: number;
  /** The dispatcher's bounds on what it holds in memory (webhooks.ts; a test makes them small). */
  webhookLimits?: DispatcherOptions['limits'];
  /** Start from this snapshot (`orc sandbox export`), into an empty store. */
  importSnapshot?: ReturnType<Store['snapshot']>;
  /** Every timer and timestamp of the sandbox (the pipeline, idempotency, rate limits, signed URLs, webhook
   * backoff, timeouts): the system clock, or a test's. */
  clock: Clock;
  /** Timers of the network, not of the service: a body's and a delivery's timeouts, keep-alives, rate-limit
   * windows, shutdown. Real time even when `clock` is steered; the same clock when absent. */
  wallClock?: Clock;
  /** One line about something that happened (a client that dropped its request, a tick retried). The
   * sandbox writes nowhere itself: `orc sandbox start` sends these to stderr; by default they go nowhere. */
  log: (line: string) => void;
  /** The built web console (index.html and assets/); by default dist/console beside orc. */
  consoleDir?: string | null;
  /** Told of every request as it arrives, before its body is read (a test waits on it instead of a sleep). */
  onRequest?: (method: string, path: string) => void;
  /** Serve https with this certificate and key (PEM), made by `--tls` (src/sandbox/tls.ts). */
  tls?: { cert: string; key: string };
  /** Standing in for the live service (`--stand-in-live`, with --tls): this live key is accepted too. */
  liveKey?: string;
}

export const SANDBOX_DEFAULTS: SandboxOptions = {
  host: KNOBS.host.default,
  port: KNOBS.port.default,
  apiKey: SANDBOX_DEFAULT_KEY,
  stageMs: KNOBS.stageMs.default,
  signedUrlTtl: KNOBS.signedUrlTtl.default,
  retryBaseMs: KNOBS.retryBaseMs.default,
  rateLimit: KNOBS.rateLimit.default,
  seed: KNOBS.seed.default,
  dataPath: ':memory:',
  keepaliveMs: KNOBS.keepaliveMs.default,
  streamBacklogBytes: STREAM_BACKLOG_BYTES,
  version: '0.0.0',
  bodyTimeoutMs: 30_000,
  ipaMib: KNOBS.ipaMib.default,
  headersTimeoutMs: 60_000,
  maxEventStreams: 2_000,
  journalSize: KNOBS.journalSize.default,
  keepDeliveries: KNOBS.keepDeliveries.default,
  clock: systemClock,
  log: () => {},
};

export interface RunningSandbox {
  url: string;
  host: string;
  port: number;
  service: SandboxService;
  store: Store;
  /** Event streams open now. */
  openStreams(): number;
  /** Every stream the SSE writer has open (runs', the firehose, the journal's) and the bytes their readers
   * have not taken yet. */
  streams(): { open: number; buffered: number };
  /** What the webhooks' dispatcher holds in memory now (webhooks.ts, held). */
  webhookWork(): ReturnType<WebhookDispatcher['held']>;
  /** What it answered and delivered, most recent last (`orc sandbox logs`). */
  journal: Journal;
  /** The clock the service runs on (a ManualClock with --clock manual). */
  clock: Clock;
  /** A fresh one-time link to the web console. */
  consoleLink(): string;
  close(): Promise<void>;
}

/** The headers every answer carries (request id, rate limits, …) as a flat [name, value, …] list: handed to
 * writeHead whole, so node:http never has to build a header object for a plain JSON answer. */
type HeaderList = string[];

/** What a route of the one table leads to: a part of the sandbox, and for the two APIs the route's handler. */
type Entry =
  | { area: 'health' | 'console' | 'files' }
  | { area: 'admin'; handler: AdminHandler }
  | { area: 'api'; handler: Handler };

/** Why the sandbox could not listen where it was asked, naming the option at fault; null for another failure. */
export function listenProblem(
  err: unknown,
  { host, port }: { host: string; port: number },
): { option: 'port' | 'host'; message: string; hint: string } | null {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE')
    return {
      option: 'port',
      message: `port ${port} on ${host} is already in use`,
      hint: 'Pick another with --port (0 picks a free one).',
    };
  if (code === 'EACCES')
    return {
      option: 'port',
      message: `not allowed to listen on ${host}:${port}`,
      hint: 'Ports below 1024 need privileges; pick another with --port.',
    };
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return {
      option: 'host',
      message: `cannot listen on ${host}: no such local address`,
      hint: 'Give --host an address of this machine, or leave it out (127.0.0.1).',
    };
  return null;
}

export async function startSandbox(partial: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  useEnglishMessages();
  const opts = { ...SANDBOX_DEFAULTS, ...partial };
  const lock = opts.dataPath === ':memory:' ? null : lockDataFolder(opts.dataPath);
  let store: Store | null = null;
  try {
    store = await Store.open(opts.dataPath);
    if (opts.importSnapshot) store.importSnapshot(opts.importSnapshot);
    opts.clock = clockNotBefore(opts.clock, store.latestTime());
    const running = await listen(opts, store);
    const close = running.close;
    return Object.assign(running, { close: () => close().finally(() => lock?.release()) });
  } catch (err) {
    store?.close();
    lock?.release();
    throw err;
  }
}

async function listen(opts: SandboxOptions, store: Store): Promise<RunningSandbox> {
  const front = new Front(opts, store);
  await front.open();
  return front.running();
}

/** One request on its way through the front: what it asked, and the headers its answer will carry. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: HeaderList;
  /** The injected fault that answered it, for the journal. */
  faultId: string | null;
}

/** The sandbox's parts and its node:http server: it accepts connections, routes each request through the
 * one table (health, console, files, admin, API), and drains and closes them on shutdown. */
class Front {
  private readonly clock: Clock;
  /** The network's timers (opts.wallClock), real time even when the service's clock is steered. */
  private readonly wallClock: Clock;
  private readonly service: SandboxService;
  private readonly faults: Faults;
  private readonly journal: Journal;
  private readonly dispatcher: WebhookDispatcher;
  private readonly retention: Retention;
  private readonly artifacts: Artifacts;
  private readonly hub: SseHub;
  private readonly limiter: RateLimiter;
  private readonly idempotency: Idempotency;
  private readonly describer: Describer;
  private readonly scheme: 'http' | 'https';
  private readonly ownHost: ReturnType<typeof ownHosts>;
  private readonly door: ConsoleDoor;
  private readonly router: Router<Entry>;
  private readonly reqPrefix = randomBytes(4).toString('hex');
  private reqCounter = 0;
  private draining = false;
  private server: Server | null = null;
  private port = 0;
  private readonly sockets = new Set<Socket>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly opts: SandboxOptions,
    private readonly store: Store,
  ) {
    const { clock, log } = opts;
    const wallClock = opts.wallClock ?? clock;
    this.clock = clock;
    this.wallClock = wallClock;
    this.service = new SandboxService(store, { stageMs: opts.stageMs, seed: opts.seed, clock, log });
    // A fault is only added once the sandbox answers, when the router below is made.
    this.faults = new Faults((method, segments) => {
      const found = this.router.match(method, segments);
      return found !== null && 'handler' in found;
    });
    this.journal = new Journal(opts.journalSize);
    this.dispatcher = new WebhookDispatcher(store, {
      retryBaseMs: opts.retryBaseMs,
      userAgent: `orc-sandbox/${opts.version}`,
      clock,
      wallClock,
      log,
      faultFor: (webhookId) => this.faults.forDelivery(webhookId),
      onAttempt: (a) => this.journal.add({ type: 'delivery', at: clock.now(), ...a }),
      keepDeliveries: opts.keepDeliveries,
      onRecorded: () => this.retention.wrote(),
      ...(opts.webhookLimits ? { limits: opts.webhookLimits } : {}),
    });
    this.retention = new Retention(store, clock, (seq) => this.dispatcher.forgetBelow(seq), opts.keepDeliveries, log);
    this.artifacts = new Artifacts(
      store.meta('file_secret', () => randomBytes(32).toString('hex')),
      opts.signedUrlTtl,
      opts.ipaMib,
    );
    this.hub = new SseHub(this.service, opts.keepaliveMs, wallClock, opts.streamBacklogBytes);
    this.limiter = new RateLimiter(opts.rateLimit, wallClock);
    this.idempotency = new Idempotency(store, clock);
    this.service.onEvent(this.dispatcher.onEvent);
    this.service.onEvent(this.retention.wrote);
    this.describer = new Describer(store, this.artifacts, this.service, log);
    this.service.onStageComplete((runId) => this.describer.describe(runId));
    this.scheme = opts.tls ? 'https' : 'http';
    this.ownHost = ownHosts(opts.host, () => this.port, opts.tls?.cert);
    this.door = new ConsoleDoor({
      wallClock,
      dir: opts.consoleDir === undefined ? defaultConsoleDir() : opts.consoleDir,
      ownHost: this.ownHost,
      port: () => this.port,
      scheme: this.scheme,
    });
    this.router = this.routeTable();
  }

  /** The one table every request is routed by: what the sandbox serves (the health check, the console's
   * page, signed files), the admin API and the service's API. */
  private routeTable(): Router<Entry> {
    const { clock, wallClock, service, dispatcher, artifacts, hub, store, faults, journal, door } = this;
    const origin = (req: IncomingMessage) => this.origin(req);
    const api = apiRoutes({
      service,
      dispatcher,
      artifacts,
      hub,
      clock,
      maxEventStreams: this.opts.maxEventStreams,
      origin,
    });
    const controls = adminRoutes({ clock, wallClock, service, dispatcher, hub, store, faults, journal, door });
    return new Router<Entry>([
      { method: 'GET', pattern: '/healthz', handler: { area: 'health' } },
      ...(['GET', 'HEAD'] as const).flatMap(
        (method): Array<Route<Entry>> => [
          { method, pattern: '/console', handler: { area: 'console' } },
          { method, pattern: '/console/{page*}', handler: { area: 'console' } },
          { method, pattern: '/files/{file*}', handler: { area: 'files' } },
        ],
      ),
      ...controls.map((r) => ({ ...r, handler: { area: 'admin' as const, handler: r.handler } })),
      ...api.map((r) => ({ ...r, handler: { area: 'api' as const, handler: r.handler } })),
    ]);
  }

  /** Listens, then starts the service's clockwork and describes what was left undescribed. */
  async open(): Promise<void> {
    const server = this.createServer();
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.service.start();
    this.dispatcher.start();
    this.retention.wrote();
    // The runs whose binary artifacts were left undescribed when the sandbox last stopped (found by the store
    // as it started: not every record read to look).
    for (const id of this.store.undescribedAtStart) this.describer.describe(id);
    // (and those of an imported snapshot: the describer skips what is described already)
    for (const rec of this.opts.importSnapshot?.runs ?? []) this.describer.describe(rec.run.id);
  }

  // Connections are reaped: one idle between requests after 5 s, one that has not sent its headers within
  // headersTimeoutMs (a silent or half-sent request), and a request whose body outlasts our own 408. Node
  // looks at them every connectionsCheckingInterval. An event stream, its request whole, is not affected.
  private createServer(): Server {
    const { opts } = this;
    const serverOptions = {
      keepAliveTimeout: 5_000,
      headersTimeout: opts.headersTimeoutMs,
      requestTimeout: opts.headersTimeoutMs + opts.bodyTimeoutMs + 5_000,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(opts.headersTimeoutMs / 4))),
    };
    const handle = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    const server: Server = opts.tls
      ? (process.getBuiltinModule('node:https') as typeof import('node:https')).createServer(
          { ...serverOptions, cert: opts.tls.cert, key: opts.tls.key },
          handle,
        )
      : createServer(serverOptions, handle);
    // https: a client that gives up during the handshake (it does not trust the certificate) is not an error.
    server.on('tlsClientError', (_err: Error, socket: Socket) => socket.destroy());
    server.on('connection', (s: Socket) => this.accept(s));
    server.on('clientError', answerUnparsable);
    return server;
  }

  /** Every connection is known, so a shutdown can end the ones still open after its grace. */
  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  /** What startSandbox hands out. */
  running(): RunningSandbox {
    const { opts, port, service, store, hub, journal, clock, door } = this;
    const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
    return {
      url: `${this.scheme}://${hostForUrl}:${port}`,
      host: opts.host,
      port,
      service,
      store,
      openStreams: () => hub.size,
      streams: () => hub.writer.stats(),
      webhookWork: () => this.dispatcher.held(),
      journal,
      clock,
      consoleLink: () => door.mint(`${hostForUrl}:${port}`).url,
      close: () => (this.closing ??= this.drain()),
    };
  }

  /** Shutdown: new requests and bodies still arriving are refused, the clockwork stops, idle connections go
   * at once and busy ones after 2 s, then the store closes. */
  private async drain(): Promise<void> {
    this.draining = true;
    this.describer.stop();
    this.service.stop();
    this.dispatcher.stop();
    this.retention.stop();
    this.hub.close();
    const server = this.server!;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const cancelForce = this.wallClock.timer(2_000, () => {
      for (const s of this.sockets) s.destroy();
    });
    await closed;
    cancelForce();
    this.store.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const x = this.exchange(req, res);
    this.opts.onRequest?.(x.method, x.path);
    this.journalWhenAnswered(x);
    try {
      await this.route(x);
    } catch (err) {
      // A client that went away mid-request is one line in the log, never a stack.
      // (req.destroyed alone says nothing: a request whose body was read whole is destroyed too.)
      if (!(err instanceof Failure) && (isDisconnect(err) || req.socket.destroyed || res.destroyed)) {
        this.opts.log(`sandbox: a client dropped its request (${x.method} ${x.path})`);
        return;
      }
      sendError(res, err, x.headers, this.opts.log);
    }
  }

  private exchange(req: IncomingMessage, res: ServerResponse): Exchange {
    const headers: HeaderList = ['X-Request-Id', `req_${this.reqPrefix}${(++this.reqCounter).toString(36)}`];
    const raw = originForm(req);
    const qi = raw.indexOf('?');
    const path = qi < 0 ? raw : raw.slice(0, qi);
    const query = qi < 0 ? NO_QUERY : new URLSearchParams(raw.slice(qi + 1));
    return { req, res, method: req.method ?? 'GET', path, query, headers, faultId: null };
  }

  /** The journal: every request but the journal's own and the health check, once it is answered. */
  private journalWhenAnswered(x: Exchange): void {
    const { journal, wallClock, clock } = this;
    if (journal.size === 0 || x.path === '/healthz' || x.path === '/_sandbox/logs') return;
    const started = wallClock.now();
    x.res.once('close', () =>
      journal.add({
        type: 'request',
        at: clock.now(),
        method: x.method,
        path: x.path,
        status: x.res.statusCode,
        ms: wallClock.now() - started,
        request_id: x.headers[1]!,
        idempotency_key: (x.req.headers['idempotency-key'] as string | undefined) ?? null,
        trace_id: traceIdOf(x.req.headers.traceparent as string | undefined),
        fault: x.faultId,
      }),
    );
  }

  private async route(x: Exchange): Promise<void> {
    const { req, res, method, path, query, headers } = x;
    if (this.draining) throw shuttingDown();
    if (!this.router.knows(method)) throw new Failure('method_not_implemented', `no route takes the method ${method}`);
    const parts = segments(path);
    const match = this.router.match(method, parts);
    const area = match && 'handler' in match ? match.handler.area : null;
    if (area === 'health')
      return sendJson(res, 200, JSON.stringify({ ok: true, version: this.opts.version, pid: process.pid }), headers);
    if (area === 'console') return this.door.serve(req, res, method, path, query);
    if (area === 'files') {
      this.limiter.take(headers, `ip:${req.socket.remoteAddress}`);
      const { artifacts, store, clock } = this;
      return await serveFile({ artifacts, store, clock }, req, res, path, parts.slice(1), query, headers);
    }
    // A path that needs no key (the console, the files) tells its methods without one.
    const keyless = (h: Entry) => h.area !== 'api' && h.area !== 'admin';
    if (match && 'allow' in match && match.handlers.every(keyless)) notAllowed(method, path, match.allow);
    const key = this.keyOf(x);
    if (!match) throw new Failure('route_not_found', `no route ${method} ${path}`);
    if ('allow' in match) notAllowed(method, path, match.allow);
    const entry = match.handler;
    if (entry.area === 'admin') return this.admin(x, key, entry.handler, match.params);
    if (entry.area === 'api') return this.api(x, key, entry.handler, match);
  }

  /** The request's key, counted by the rate limit; a request refused for its key is counted by its address. */
  private keyOf(x: Exchange): string {
    let key: string;
    try {
      key = this.authenticate(x.req, x.method);
    } catch (err) {
      this.limiter.take(x.headers, `ip:${x.req.socket.remoteAddress}`);
      throw err;
    }
    this.limiter.take(x.headers, key);
    return key;
  }

  private authenticate(req: IncomingMessage, method: string): string {
    const { opts } = this;
    // A DNS-rebinding page, or a client that names another host, is refused before any key is looked at.
    // (Any port: a reverse proxy on this machine keeps the Host it was sent, and the signed file URLs built
    // from it lead back through that proxy; a rebinding page cannot name a loopback host.)
    if (!this.ownHost(req.headers.host, true))
      throw new Failure(
        'cross_origin_refused',
        `the sandbox answers only at its own address, not at ${JSON.stringify(req.headers.host ?? '')}`,
      );
    const header = req.headers.authorization;
    // The web console's page: its session cookie stands for the key, which the browser never sees.
    if (!header && this.door.session(req, method)) return opts.apiKey;
    if (!header) throw new Failure('missing_api_key', 'no API key: send Authorization: Bearer sk_test_…');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new Failure('invalid_api_key', 'the Authorization header must be Bearer <key>');
    const key = m[1]!;
    if (opts.liveKey && key === opts.liveKey) return key;
    if (key.startsWith('sk_live_'))
      throw new Failure('live_key_in_sandbox', 'a live key was sent to the sandbox; use the sandbox test key');
    if (key !== opts.apiKey) throw new Failure('invalid_api_key', `invalid API key ${redactKey(key)}`);
    return key;
  }

  private async admin(x: Exchange, key: string, handler: AdminHandler, params: Record<string, string>) {
    const { req, res, query, headers } = x;
    // Steering is test mode's (CONTRACT.md): a stand-in for the live service takes no control by its live key.
    if (key !== this.opts.apiKey)
      throw new Failure('live_key_in_sandbox', 'the sandbox controls take the test key only');
    // (an admin route that streams, the export, writes its own head: the common headers go on it too)
    setHeaders(res, headers);
    const out = await handler({ req, res, params, query, body: () => this.readBody(req) });
    if (out) sendJson(res, out.status, JSON.stringify(out.value), headers);
  }

  private async api(x: Exchange, key: string, handler: Handler, match: RouteMatch<Entry>): Promise<void> {
    const { req, res, method, path, query, headers } = x;
    // An injected fault answers before the service does: nothing it would have done is done.
    const fault = this.faults.forRequest(method, path);
    let cutAfter: number | undefined;
    if (fault) {
      x.faultId = fault.id;
      if (fault.latency_ms) await sleep(this.wallClock, fault.latency_ms);
      if (fault.reset) return void req.socket.destroy();
      if (fault.status !== undefined) throw Faults.failure(fault);
      cutAfter = fault.cut_after;
    }
    const call: Call = {
      req,
      res,
      params: match.params,
      query,
      body: undefined,
      ...(cutAfter !== undefined ? { cutAfter } : {}),
    };
    if (method === 'POST') {
      const header = req.headers['idempotency-key'];
      const answer = await this.idempotency.run(
        key,
        Array.isArray(header) ? header[0] : header,
        `${method} ${path}`,
        () => this.readBody(req),
        (body) => handler({ ...call, body }) as Reply,
      );
      if (answer.replayed) headers.push('Idempotent-Replayed', 'true');
      return sendJson(res, answer.status, answer.body, headers);
    }
    if (method === 'PATCH') call.body = await this.readBody(req);
    // A route that streams writes its own head: it gets the common headers set on the response first.
    if (match.stream) setHeaders(res, headers);
    const answer = handler(call);
    if (answer) sendJson(res, answer.status, answer.body, headers);
  }

  /** A body that finishes arriving after shutdown began is refused whole, never half-applied. */
  private async readBody(req: IncomingMessage): Promise<unknown> {
    const body = await readJsonBody(req, this.opts.bodyTimeoutMs, this.wallClock);
    if (this.draining) throw shuttingDown();
    return body;
  }

  private origin(req: IncomingMessage): string {
    return `${this.scheme}://${req.headers.host ?? `${this.opts.host}:${this.port}`}`;
  }
}

// (Connection: close, so the client's keep-alive does not hold the shutdown up.)
const shuttingDown = () =>
  new Failure('unavailable', 'the sandbox is shutting down', undefined, { Connection: 'close' });

/** The common headers set on a response whose route writes its own head. */
function setHeaders(res: ServerResponse, headers: HeaderList): void {
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
}

function notAllowed(method: string, path: string, allow: string[]): never {
  const methods = allow.join(', ');
  const message = `${method} is not allowed on ${path}; allowed: ${methods}`;
  throw new Failure('method_not_allowed', message, undefined, { Allow: methods });
}

function isDisconnect(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return (
    code === 'ECONNRESET' ||
    code === 'ECONNABORTED' ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    (err as Error)?.message === 'aborted'
  );
}

/** The request target in origin form: an absolute-form one (`GET http://host:port/v1/runs`, RFC 9112 3.2.2)
 * is served like it, its authority standing for the Host header (which the RFC says to ignore then). */
function originForm(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const m = /^https?:\/\/([^/?#]*)/i.exec(url);
  if (!m) return url;
  req.headers.host = m[1]!;
  const rest = url.slice(m[0].length);
  return (req.url = rest.startsWith('/') ? rest : `/${rest}`);
}

/** A request Node's parser refuses is answered as RFC 9112 says, with the error envelope, and the connection
 * closed (its framing can no longer be trusted). A socket error (a client resetting mid-request, a timeout
 * Node already answered) is the request's business, not the server's: the socket just goes. */
function answerUnparsable(err: NodeJS.ErrnoException, socket: Socket): void {
  const code = err.code ?? '';
  // (an answer already under way on this socket cannot be followed by another)
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!code.startsWith('HPE_') || !socket.writable || inFlight?.headersSent) return void socket.destroy();
  const failure =
    code === 'HPE_HEADER_OVERFLOW'
      ? new Failure('headers_too_large', 'the request head is over 16 KiB')
      : code === 'HPE_INVALID_METHOD'
        ? new Failure('method_not_implemented', 'no route takes this method (methods are upper case: GET, POST, …)')
        : new Failure(
            'malformed_request',
            `the request is not valid HTTP/1.1: ${err.message.replace(/[^\x20-\x7e]/g, '')}`,
          );
  const body = failure.toBody();
  const reason = STATUS_CODES[failure.status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${failure.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function sendJson(res: ServerResponse, status: number, body: string, headers: HeaderList): void {
  headers.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body)));
  res.writeHead(status, headers);
  res.end(body);
}

function sendError(res: ServerResponse, err: unknown, headers: HeaderList, log: (line: string) => void): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const storage = err instanceof Failure ? null : storageFailure(err);
  const failure =
    err instanceof Failure ? err : (storage ?? new Failure('internal_error', 'the sandbox hit an unexpected error'));
  if (!(err instanceof Failure) && !storage) log(`sandbox internal error: ${(err as Error)?.stack ?? String(err)}`);
  else if (storage?.headers['Retry-After'] === DISK_FULL_RETRY_S) log(`sandbox: ${storage.message}`);
  for (const [k, v] of Object.entries(failure.headers)) headers.push(k, v);
  // Every 401 names the scheme that would be accepted (RFC 9110 11.6.1, RFC 6750 3).
  if (failure.status === 401)
    headers.push('WWW-Authenticate', failure.code === 'missing_api_key' ? 'Bearer' : 'Bearer error="invalid_token"');
  sendJson(res, failure.status, failure.toBody(), headers);
}

const NO_QUERY = new URLSearchParams();
