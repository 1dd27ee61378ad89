// The sandbox's HTTP front: auth, rate limits, idempotency and a table of routes over node:http. The
// parts live beside it: body.ts (input limits), router.ts, idempotency.ts, rate-limit.ts, sse-hub.ts.
import { randomBytes } from 'node:crypto';
import type { ZodMiniType } from 'zod/mini';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../clock.js';
import { RUN_STATUSES } from '../contract/events.js';
import { SANDBOX_DEFAULT_KEY, redactKey } from '../contract/keys.js';
import { KNOBS } from '../contract/sandbox-knobs.js';
import { useEnglishMessages } from '../contract/messages.js';
import { flatMemory } from '../memory.js';
import { ApproveParams, RejectParams, RunCreateParams } from '../contract/schemas.js';
import { Artifacts } from './artifacts.js';
import { readJsonBody } from './body.js';
import { Failure, failureFromZod } from './failure.js';
import { parseRange } from './files.js';
import { Idempotency, type Answer } from './idempotency.js';
import { lockDataFolder } from './lock.js';
import { page } from './page.js';
import { RateLimiter } from './rate-limit.js';
import { Router } from './router.js';
import { SandboxService } from './service.js';
import { SseHub } from './sse-hub.js';
import { Store } from './store.js';
import { WebhookDispatcher, deliveryView, webhookView } from './webhooks.js';

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
  keepAliveMs: number;
  version: string;
  /** How long a request body may take to arrive after its headers (CONTRACT.md: 30 s). */
  bodyTimeoutMs: number;
  /** The size of a generated ipa, in MiB. */
  ipaMib: number;
  /** A connection must send a request's headers within this long (ms), else it is closed. */
  headersTimeoutMs: number;
  /** Event streams open at once; past that a new one is answered 503 with Retry-After. */
  maxEventStreams: number;
  /** Every timer and timestamp of the sandbox (the pipeline, idempotency, rate limits, signed URLs, webhook
   * backoff, timeouts): the system clock, or a test's. */
  clock: Clock;
  /** One line about something that happened (a client that dropped its request, a tick retried). The
   * sandbox writes nowhere itself: `orc sandbox start` sends these to stderr; by default they go nowhere. */
  log: (line: string) => void;
  /** Told of every request as it arrives, before its body is read (a test waits on it instead of a sleep). */
  onRequest?: (method: string, path: string) => void;
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
  keepAliveMs: KNOBS.keepaliveMs.default,
  version: '0.0.0',
  bodyTimeoutMs: 30_000,
  ipaMib: KNOBS.ipaMib.default,
  headersTimeoutMs: 60_000,
  maxEventStreams: 2_000,
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
  close(): Promise<void>;
}

/** What a route handler gets: the request, its path parameters, its query and (read on demand) its body. */
interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

/** The headers every answer carries (request id, rate limits, …) as a flat [name, value, …] list: handed to
 * writeHead whole, so node:http never has to build a header object for a plain JSON answer. */
type Headers = string[];

/** A route answers JSON ([status, body]) or writes the answer itself (a stream) and answers nothing. */
type Handler = (call: Call) => Answer | void;

export async function startSandbox(partial: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  useEnglishMessages();
  const opts = { ...SANDBOX_DEFAULTS, ...partial };
  const lock = opts.dataPath === ':memory:' ? null : lockDataFolder(opts.dataPath);
  let store: Store | null = null;
  try {
    store = await Store.open(opts.dataPath);
    const running = await listen(opts, store);
    const close = running.close;
    return Object.assign(running, { close: () => close().finally(() => lock?.release()) });
  } catch (err) {
    store?.close();
    lock?.release();
    throw err;
  }
}

/** Committed records are never changed in place (a change swaps in a new copy), so the JSON of one is
 * made once and kept for as long as that object lives. */
const encoded = new WeakMap<object, string>();
const json = (status: number, value: unknown): Answer => {
  if (value === null || typeof value !== 'object') return { status, body: JSON.stringify(value) };
  let body = encoded.get(value);
  if (body === undefined) encoded.set(value, (body = JSON.stringify(value)));
  return { status, body };
};

async function listen(opts: SandboxOptions, store: Store): Promise<RunningSandbox> {
  const { clock, log } = opts;
  const service = new SandboxService(store, { stageMs: opts.stageMs, seed: opts.seed, clock, log });
  const dispatcher = new WebhookDispatcher(store, { retryBaseMs: opts.retryBaseMs, userAgent: `orc-sandbox/${opts.version}`, clock, log });
  const artifacts = new Artifacts(store.meta('file_secret', () => randomBytes(32).toString('hex')), opts.signedUrlTtl, opts.ipaMib);
  const hub = new SseHub(service, opts.keepAliveMs, clock);
  const limiter = new RateLimiter(opts.rateLimit, clock);
  const idempotency = new Idempotency(store, clock);
  const reqPrefix = randomBytes(4).toString('hex');
  let reqCounter = 0;
  let draining = false;
  service.onEvent(dispatcher.onEvent);
  // A binary artifact is described (sizes, digests) once, when its stage has completed, off the request
  // path and in slices: listing artifacts then reads only what the run keeps.
  // One file at a time, so describing several large ipas never adds up in memory.
  const describing = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  const describe = (runId: string) => {
    const rec = store.runs.get(runId);
    if (!rec) return;
    for (const kind of artifacts.due(rec)) {
      const job = `${runId}:${kind}:${rec.artifactTimes[kind] ?? ''}`;
      if (describing.has(job)) continue;
      describing.add(job);
      queue = queue
        .then(async () => {
          const current = store.runs.get(runId);
          if (draining || !current) return;
          const meta = await artifacts.prepare(current, kind);
          if (!draining) service.setArtifactMeta(runId, kind, meta);
        })
        .catch((err: Error) => opts.log(`sandbox: could not describe the ${kind} of ${runId} (${err.message})`))
        .finally(() => describing.delete(job));
    }
  };
  service.onStageComplete((runId) => describe(runId));

  const parse = <T>(schema: ZodMiniType<T>, body: unknown): T => {
    const parsed = schema.safeParse(body ?? {});
    if (!parsed.success) throw failureFromZod(parsed.error, body ?? {});
    return parsed.data;
  };
  const decide = (decision: 'approved' | 'rejected'): Handler => ({ params, body }) => {
    service.getRun(params.run!);
    let notes: string | null = null;
    if (decision === 'rejected') notes = parse(RejectParams, body).notes;
    else if (body !== undefined) notes = parse(ApproveParams, body).notes?.trim() || null;
    return json(200, service.decide(params.run!, params.gate!, decision, notes));
  };

  // Every route the sandbox answers. POSTs go through the idempotency layer; PATCH and POST read a body.
  const router = new Router<Handler>([
    { method: 'GET', pattern: '/v1/runs', handler: ({ query }) => json(200, listRuns(query)) },
    { method: 'POST', pattern: '/v1/runs', handler: ({ body }) => json(201, service.createRun(parse(RunCreateParams, body)).run) },
    { method: 'GET', pattern: '/v1/runs/{run}', handler: ({ params }) => json(200, service.getRun(params.run!).run) },
    { method: 'POST', pattern: '/v1/runs/{run}/cancel', handler: ({ params }) => json(200, service.cancel(params.run!).run) },
    { method: 'GET', pattern: '/v1/runs/{run}/spec', handler: ({ params }) => json(200, service.getRun(params.run!).spec) },
    {
      method: 'PATCH',
      pattern: '/v1/runs/{run}/spec',
      handler: ({ req, params, body }) => {
        const rec = service.getRun(params.run!);
        const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/merge-patch+json' && type !== 'application/json') throw new Failure('unsupported_media_type', 'send the patch as application/merge-patch+json');
        return json(200, service.patchSpec(rec.run.id, body).spec);
      },
    },
    { method: 'GET', pattern: '/v1/runs/{run}/gates', handler: ({ params }) => json(200, { data: Object.values(service.getRun(params.run!).gates) }) },
    { method: 'POST', pattern: '/v1/runs/{run}/gates/{gate}:approve', handler: decide('approved') },
    { method: 'POST', pattern: '/v1/runs/{run}/gates/{gate}:reject', handler: decide('rejected') },
    {
      method: 'GET',
      pattern: '/v1/runs/{run}/scorecard',
      handler: ({ params }) => {
        const rec = service.getRun(params.run!);
        if (!rec.scorecard) throw new Failure('scorecard_not_ready', `run ${rec.run.id} has not been scored yet (stage ${rec.run.stage})`);
        return json(200, rec.scorecard);
      },
    },
    { method: 'GET', pattern: '/v1/runs/{run}/artifacts', handler: ({ params }) => json(200, { data: artifacts.manifest(service.getRun(params.run!)) }) },
    { method: 'GET', pattern: '/v1/runs/{run}/artifacts/{kind}', handler: ({ req, params }) => json(200, artifacts.artifact(service.getRun(params.run!), params.kind!, origin(req), clock.now())) },
    {
      method: 'GET',
      pattern: '/v1/runs/{run}/events',
      stream: true,
      handler: ({ req, res, params, query }) => {
        const rec = service.getRun(params.run!);
        if (hub.size >= opts.maxEventStreams) throw new Failure('unavailable', `${opts.maxEventStreams} event streams are open, the most this sandbox serves; retry shortly`, undefined, { 'Retry-After': '5' });
        hub.open(req, res, rec, (req.headers['last-event-id'] as string | undefined) ?? query.get('last_event_id'));
      },
    },
    { method: 'GET', pattern: '/v1/webhooks', handler: ({ query }) => json(200, page(dispatcher.list(), query, webhookView)) },
    {
      method: 'POST',
      pattern: '/v1/webhooks',
      handler: ({ body }) => {
        const w = dispatcher.register(body ?? {});
        return json(201, { ...webhookView(w), secret: w.secret });
      },
    },
    { method: 'GET', pattern: '/v1/webhooks/{webhook}', handler: ({ params }) => json(200, webhookView(dispatcher.get(params.webhook!))) },
    {
      method: 'DELETE',
      pattern: '/v1/webhooks/{webhook}',
      handler: ({ params }) => {
        const w = dispatcher.get(params.webhook!);
        dispatcher.remove(w.id);
        return json(200, { id: w.id, deleted: true });
      },
    },
    { method: 'GET', pattern: '/v1/webhooks/{webhook}/deliveries', handler: ({ params, query }) => json(200, page(dispatcher.deliveriesOf(dispatcher.get(params.webhook!).id), query, deliveryView)) },
    { method: 'POST', pattern: '/v1/webhooks/{webhook}/deliveries/{delivery}:redeliver', handler: ({ params }) => json(200, deliveryView(dispatcher.redeliver(params.webhook!, params.delivery!))) },
  ]);

  function listRuns(query: URLSearchParams) {
    const status = query.get('status');
    if (status !== null && !(RUN_STATUSES as readonly string[]).includes(status)) throw new Failure('invalid_value', `status must be one of ${RUN_STATUSES.join(', ')}`, 'status');
    return page(service.listRuns(status), query, (rec) => rec.run);
  }

  function authenticate(req: IncomingMessage): string {
    const header = req.headers.authorization;
    if (!header) throw new Failure('missing_api_key', 'no API key: send Authorization: Bearer sk_test_…');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new Failure('invalid_api_key', 'the Authorization header must be Bearer <key>');
    const key = m[1]!;
    if (key.startsWith('sk_live_')) throw new Failure('live_key_in_sandbox', 'a live key was sent to the sandbox; use the sandbox test key');
    if (key !== opts.apiKey) throw new Failure('invalid_api_key', `invalid API key ${redactKey(key)}`);
    return key;
  }

  /** A body that finishes arriving after shutdown began is refused whole, never half-applied. */
  async function readBody(req: IncomingMessage): Promise<unknown> {
    const body = await readJsonBody(req, opts.bodyTimeoutMs, clock);
    // (Connection: close, so the client's keep-alive does not hold the shutdown up.)
    if (draining) throw new Failure('unavailable', 'the sandbox is shutting down', undefined, { Connection: 'close' });
    return body;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers: Headers = ['X-Request-Id', `req_${reqPrefix}${(++reqCounter).toString(36)}`];
    const raw = req.url ?? '/';
    const qi = raw.indexOf('?');
    const path = qi < 0 ? raw : raw.slice(0, qi);
    const query = qi < 0 ? NO_QUERY : new URLSearchParams(raw.slice(qi + 1));
    const method = req.method ?? 'GET';
    opts.onRequest?.(method, path);
    try {
      if (draining) throw new Failure('unavailable', 'the sandbox is shutting down', undefined, { Connection: 'close' });
      if (path === '/healthz') return sendJson(res, 200, JSON.stringify({ ok: true, version: opts.version, pid: process.pid }), headers);
      if (path.startsWith('/files/')) {
        limiter.take(headers, `ip:${req.socket.remoteAddress}`);
        return await serveFile(req, res, path, query, method, headers);
      }
      let key: string;
      try {
        key = authenticate(req);
      } catch (err) {
        limiter.take(headers, `ip:${req.socket.remoteAddress}`);
        throw err;
      }
      limiter.take(headers, key);
      const match = router.match(method, path.split('/').slice(1).map(decodeSegment));
      if (!match) throw new Failure('route_not_found', `no route ${method} ${path}`);
      if ('allow' in match) {
        throw new Failure('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${match.allow.join(', ')}`, undefined, { Allow: match.allow.join(', ') });
      }
      const call: Call = { req, res, params: match.params, query, body: undefined };
      if (method === 'POST') {
        const header = req.headers['idempotency-key'];
        const answer = await idempotency.run(key, Array.isArray(header) ? header[0] : header, `${method} ${path}`, () => readBody(req), (body) => match.handler({ ...call, body }) as Answer);
        if (answer.replayed) headers.push('Idempotent-Replayed', 'true');
        return sendJson(res, answer.status, answer.body, headers);
      }
      if (method === 'PATCH') call.body = await readBody(req);
      // A route that streams writes its own head: it gets the common headers set on the response first.
      if (match.stream) for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
      const answer = match.handler(call);
      if (answer) sendJson(res, answer.status, answer.body, headers);
    } catch (err) {
      // A client that went away mid-request is one line in the log, never a stack.
      // (req.destroyed alone says nothing: a request whose body was read whole is destroyed too.)
      if (!(err instanceof Failure) && (isDisconnect(err) || req.socket.destroyed || res.destroyed)) {
        opts.log(`sandbox: a client dropped its request (${method} ${path})`);
        return;
      }
      sendError(res, err, headers, log);
    }
  }

  async function serveFile(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, method: string, common: Headers): Promise<void> {
    if (method !== 'GET' && method !== 'HEAD') throw new Failure('method_not_allowed', `${method} is not allowed on files`, undefined, { Allow: 'GET, HEAD' });
    const verdict = artifacts.verify(path, query.get('expires'), query.get('signature'), clock.now());
    if (verdict === 'invalid') throw new Failure('signed_url_invalid', 'the signature of this file URL is not valid');
    if (verdict === 'expired') throw new Failure('signed_url_expired', 'this file URL has expired; ask for the artifact again for a fresh one');
    const [runId, kind, name] = path.split('/').slice(2).map(decodeSegment);
    const rec = store.runs.get(runId ?? '');
    const f = rec && kind && name ? artifacts.lookup(rec, kind, name) : null;
    if (!f) throw new Failure('route_not_found', 'no such file');
    const size = f.meta.size;
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      throw new Failure('range_not_satisfiable', `the range ${req.headers.range} is outside the file (${size} bytes)`, undefined, { 'Content-Range': `bytes */${size}` });
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    const headers = [
      ...common,
      'Content-Type', f.meta.content_type,
      'Accept-Ranges', 'bytes',
      'ETag', `"${f.meta.sha256}"`,
      'Cache-Control', 'private, no-store',
      'Content-Disposition', `attachment; filename="${f.meta.name.replace(/"/g, '')}"`,
      'Content-Length', String(end - start + 1),
    ];
    if (range) headers.push('Content-Range', `bytes ${start}-${end}/${size}`);
    res.writeHead(range ? 206 : 200, headers);
    if (method === 'HEAD') return void res.end();
    // Streamed from the generator a slice at a time, waiting for the client to take each: memory stays flat
    // (and each slice, fresh from the cipher, is collected while young: memory.ts).
    const flat = flatMemory();
    for await (const piece of f.open(start, end)) {
      if (res.destroyed) return;
      if (!res.write(piece)) await untilDrained(res);
      flat(piece.length);
    }
    res.end();
  }

  function origin(req: IncomingMessage): string {
    return `http://${req.headers.host ?? `${opts.host}:${port}`}`;
  }

  // Connections are reaped: one idle between requests after 5 s, one that has not sent its headers within
  // headersTimeoutMs (a silent or half-sent request), and a request whose body outlasts our own 408. Node
  // looks at them every connectionsCheckingInterval. An event stream, its request whole, is not affected.
  const server: Server = createServer(
    {
      keepAliveTimeout: 5_000,
      headersTimeout: opts.headersTimeoutMs,
      requestTimeout: opts.headersTimeoutMs + opts.bodyTimeoutMs + 5_000,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(opts.headersTimeoutMs / 4))),
    },
    (req, res) => void handle(req, res),
  );
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A socket error (a client resetting mid-request) is the request's business, not the server's.
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  service.start();
  dispatcher.start();
  for (const rec of service.listRuns(null)) describe(rec.run.id);
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${hostForUrl}:${port}`,
    host: opts.host,
    port,
    service,
    store,
    openStreams: () => hub.size,
    close() {
      closing ??= (async () => {
        draining = true;
        service.stop();
        dispatcher.stop();
        hub.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const cancelForce = clock.timer(2_000, () => {
          for (const s of sockets) s.destroy();
        });
        await closed;
        cancelForce();
        store.close();
      })();
      return closing;
    },
  };
}

function isDisconnect(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as Error)?.message === 'aborted';
}

function sendJson(res: ServerResponse, status: number, body: string, headers: Headers): void {
  headers.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body)));
  res.writeHead(status, headers);
  res.end(body);
}

function sendError(res: ServerResponse, err: unknown, headers: Headers, log: (line: string) => void): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const busy = !(err instanceof Failure) && /database is (locked|busy)/i.test((err as Error)?.message ?? '');
  const failure =
    err instanceof Failure ? err : busy ? new Failure('unavailable', 'the sandbox database is busy; retry shortly', undefined, { 'Retry-After': '1' }) : new Failure('internal_error', 'the sandbox hit an unexpected error');
  if (!(err instanceof Failure) && !busy) log(`sandbox internal error: ${(err as Error)?.stack ?? String(err)}`);
  for (const [k, v] of Object.entries(failure.headers)) headers.push(k, v);
  sendJson(res, failure.status, failure.toBody(), headers);
}

const NO_QUERY = new URLSearchParams();

function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Until the client has taken what was written, or has gone; both listeners removed either way (a slow
 * download waits thousands of times on one response). */
function untilDrained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
