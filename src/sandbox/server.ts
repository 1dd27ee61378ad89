// The sandbox's HTTP front: auth, rate limits, idempotency, routing, SSE and signed files over node:http.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { RUN_STATUSES } from '../contract/events.js';
import { SANDBOX_DEFAULT_KEY, redactKey } from '../contract/keys.js';
import { useEnglishMessages } from '../contract/messages.js';
import { ApproveParams, RejectParams, RunCreateParams } from '../contract/schemas.js';
import { Artifacts } from './artifacts.js';
import { Failure, failureFromZod } from './failure.js';
import { parseRange } from './files.js';
import { SandboxService, isTerminal } from './service.js';
import { lockDataFolder } from './lock.js';
import { Store, type RunRecord, type StoredEvent } from './store.js';
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
}

export const SANDBOX_DEFAULTS: SandboxOptions = {
  host: '127.0.0.1',
  port: 4010,
  apiKey: SANDBOX_DEFAULT_KEY,
  stageMs: 4000,
  signedUrlTtl: 300,
  retryBaseMs: 1000,
  rateLimit: 100,
  seed: 0,
  dataPath: ':memory:',
  keepAliveMs: 15_000,
  version: '0.0.0',
};

export interface RunningSandbox {
  url: string;
  host: string;
  port: number;
  service: SandboxService;
  store: Store;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const SSE_MAX_BUFFER = 4 * 1024 * 1024;

/** One open event stream, and the last event id it has been sent. */
interface Watcher {
  res: ServerResponse;
  lastSeq: number;
}

interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  segments: string[];
  query: URLSearchParams;
  key: string;
}

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

async function listen(opts: SandboxOptions, store: Store): Promise<RunningSandbox> {
  const service = new SandboxService(store, { stageMs: opts.stageMs, seed: opts.seed });
  const dispatcher = new WebhookDispatcher(store, { retryBaseMs: opts.retryBaseMs, userAgent: `orc-sandbox/${opts.version}` });
  const artifacts = new Artifacts(store.meta('file_secret', () => randomBytes(32).toString('hex')), opts.signedUrlTtl);
  const watchers = new Map<string, Set<Watcher>>();
  const windows = new Map<string, { reset: number; count: number }>();
  const inFlightKeys = new Set<string>();
  const reqPrefix = randomBytes(4).toString('hex');
  let reqCounter = 0;
  let savedKeys = 0;
  let draining = false;

  service.onEvent(dispatcher.onEvent);
  // Events committed together (one pipeline tick: a stage change and its log lines) reach each watcher in
  // one write, encoded once, at the end of the tick.
  const outbox = new Map<string, { events: StoredEvent[]; terminal: boolean }>();
  service.onEvent((runId, ev, terminal) => {
    if (!watchers.has(runId)) return;
    let box = outbox.get(runId);
    if (!box) {
      outbox.set(runId, (box = { events: [], terminal: false }));
      if (outbox.size === 1) queueMicrotask(flushOutbox);
    }
    box.events.push(ev);
    box.terminal ||= terminal;
  });
  function flushOutbox(): void {
    for (const [runId, { events, terminal }] of outbox) {
      const set = watchers.get(runId);
      if (!set) continue;
      const all = Buffer.from(events.map(sseFrame).join(''));
      const last = events.at(-1)!.seq;
      for (const w of set) {
        // A watcher that joined meanwhile already has part of this in its replay: never send an event twice.
        const chunk = w.lastSeq < events[0]!.seq ? all : Buffer.from(events.filter((e) => e.seq > w.lastSeq).map(sseFrame).join(''));
        if (chunk.length) writeSse(w.res, chunk);
        w.lastSeq = Math.max(w.lastSeq, last);
        if (terminal) w.res.end();
      }
      if (terminal) watchers.delete(runId);
    }
    outbox.clear();
  }
  const keepAliveFrame = Buffer.from(': keep-alive\n\n');
  const keepAlive = setInterval(() => {
    for (const set of watchers.values()) for (const w of set) writeSse(w.res, keepAliveFrame);
  }, opts.keepAliveMs);
  keepAlive.unref();

  function writeSse(res: ServerResponse, chunk: string | Buffer): void {
    // A watcher that stopped reading is dropped rather than buffered without end.
    if (res.writableLength > SSE_MAX_BUFFER) res.destroy();
    else res.write(chunk);
  }

  function rateLimit(res: ServerResponse, bucket: string): void {
    if (opts.rateLimit <= 0) return;
    const nowS = Math.floor(Date.now() / 1000);
    let w = windows.get(bucket);
    if (!w || w.reset <= nowS) {
      w = { reset: nowS + 1, count: 0 };
      windows.set(bucket, w);
      if (windows.size > 10_000) for (const [k, v] of windows) if (v.reset <= nowS) windows.delete(k);
    }
    w.count++;
    res.setHeader('X-RateLimit-Limit', opts.rateLimit);
    res.setHeader('X-RateLimit-Remaining', Math.max(0, opts.rateLimit - w.count));
    res.setHeader('X-RateLimit-Reset', w.reset);
    if (w.count > opts.rateLimit) {
      const retry = Math.max(1, w.reset - nowS);
      throw new Failure('rate_limited', `more than ${opts.rateLimit} requests per second with this key; retry in ${retry} s`, undefined, { 'Retry-After': String(retry) });
    }
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('X-Request-Id', `req_${reqPrefix}${(++reqCounter).toString(36)}`);
    const raw = req.url ?? '/';
    const qi = raw.indexOf('?');
    const path = qi < 0 ? raw : raw.slice(0, qi);
    const query = new URLSearchParams(qi < 0 ? '' : raw.slice(qi + 1));
    const method = req.method ?? 'GET';
    try {
      if (draining) throw new Failure('unavailable', 'the sandbox is shutting down');
      if (path === '/healthz') return sendJson(res, 200, JSON.stringify({ ok: true, version: opts.version }));
      if (path.startsWith('/files/')) {
        rateLimit(res, `ip:${req.socket.remoteAddress}`);
        return serveFile(req, res, path, query, method);
      }
      let key: string;
      try {
        key = authenticate(req);
      } catch (err) {
        rateLimit(res, `ip:${req.socket.remoteAddress}`);
        throw err;
      }
      rateLimit(res, key);
      const segments = path.split('/').slice(1).map(decodeSegment);
      if (segments[0] !== 'v1') throw new Failure('route_not_found', `no route ${method} ${path}`);
      const r: Request = { req, res, method, segments, query, key };
      if (method === 'POST') return await idempotent(r, path);
      const body = method === 'PATCH' ? await readBody(req) : undefined;
      return route(r, body);
    } catch (err) {
      sendError(res, err);
    }
  }

  /** A body that finishes arriving after shutdown began is refused whole, never half-applied. */
  async function readBody(req: IncomingMessage): Promise<unknown> {
    const body = await readJson(req);
    if (draining) throw new Failure('unavailable', 'the sandbox is shutting down');
    return body;
  }

  /** Idempotency-Key on any POST: the first answer (2xx) is kept 24 h and replayed; a different body is 422; a request still in flight is 409. */
  async function idempotent(r: Request, path: string): Promise<void> {
    const header = r.req.headers['idempotency-key'];
    const idemKey = Array.isArray(header) ? header[0] : header;
    if (idemKey === undefined) return route(r, await readBody(r.req));
    if (idemKey.length === 0 || idemKey.length > 255) throw new Failure('invalid_value', 'Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');
    const scope = `${r.key}\n${idemKey}`;
    if (inFlightKeys.has(scope)) throw new Failure('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry shortly');
    inFlightKeys.add(scope);
    try {
      const body = await readBody(r.req);
      const fingerprint = createHash('sha256').update(`${r.method} ${path}\n${canonicalJson(body)}`).digest('hex');
      let saved = store.idempotency.get(scope);
      if (saved && Date.now() - saved.createdAtMs > IDEMPOTENCY_TTL_MS) {
        store.transaction(() => store.deleteIdempotency(scope));
        saved = undefined;
      }
      if (saved) {
        if (saved.fingerprint !== fingerprint)
          throw new Failure('idempotency_key_reused', 'this Idempotency-Key was used with a different request; use a new key for a new request', 'Idempotency-Key');
        r.res.setHeader('Idempotent-Replayed', 'true');
        return sendJson(r.res, saved.status, saved.body);
      }
      // The answer is kept in the same transaction as the change it reports, so a replay after a crash tells the truth.
      const [status, out] = store.transaction(() => {
        const answer = routePost(r, body);
        if (answer[0] < 300) {
          store.saveIdempotency(scope, { fingerprint, status: answer[0], body: answer[1], createdAtMs: Date.now() });
          // Keys are kept 24 h; now and then the expired ones go, so a long-lived sandbox does not hoard them.
          if (++savedKeys % 1000 === 0) store.sweepIdempotency(Date.now() - IDEMPOTENCY_TTL_MS);
        }
        return answer;
      });
      sendJson(r.res, status, out);
    } finally {
      inFlightKeys.delete(scope);
    }
  }

  function route(r: Request, body: unknown): void {
    if (r.method === 'POST') {
      const [status, out] = routePost(r, body);
      return sendJson(r.res, status, out);
    }
    const { segments: s, method, res } = r;
    const n = s.length;
    if (s[1] === 'runs') {
      if (n === 2 && method === 'GET') return sendJson(res, 200, JSON.stringify(listRuns(r.query)));
      const rec = service.getRun(s[2]!);
      if (n === 3 && method === 'GET') return sendJson(res, 200, JSON.stringify(rec.run));
      if (n === 4 && s[3] === 'spec') {
        if (method === 'GET') return sendJson(res, 200, JSON.stringify(rec.spec));
        if (method === 'PATCH') {
          const type = (r.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          if (type !== 'application/merge-patch+json' && type !== 'application/json')
            throw new Failure('unsupported_media_type', 'send the patch as application/merge-patch+json');
          return sendJson(res, 200, JSON.stringify(service.patchSpec(rec.run.id, body).spec));
        }
      }
      if (n === 4 && s[3] === 'gates' && method === 'GET') return sendJson(res, 200, JSON.stringify({ data: Object.values(rec.gates) }));
      if (n === 4 && s[3] === 'scorecard' && method === 'GET') {
        if (!rec.scorecard) throw new Failure('scorecard_not_ready', `run ${rec.run.id} has not been scored yet (stage ${rec.run.stage})`);
        return sendJson(res, 200, JSON.stringify(rec.scorecard));
      }
      if (n === 4 && s[3] === 'artifacts' && method === 'GET') return sendJson(res, 200, JSON.stringify({ data: artifacts.manifest(rec) }));
      if (n === 5 && s[3] === 'artifacts' && method === 'GET') return sendJson(res, 200, JSON.stringify(artifacts.artifact(rec, s[4]!, origin(r.req))));
      if (n === 4 && s[3] === 'events' && method === 'GET') return openStream(r, rec);
    }
    if (s[1] === 'webhooks') {
      if (n === 2 && method === 'GET') return sendJson(res, 200, JSON.stringify(page([...store.webhooks.values()].filter((w) => w.status === 'enabled'), r.query, webhookView)));
      const w = dispatcher.get(s[2]!);
      if (n === 3 && method === 'GET') return sendJson(res, 200, JSON.stringify(webhookView(w)));
      if (n === 3 && method === 'DELETE') {
        dispatcher.remove(w.id);
        return sendJson(res, 200, JSON.stringify({ id: w.id, deleted: true }));
      }
      if (n === 4 && s[3] === 'deliveries' && method === 'GET')
        return sendJson(res, 200, JSON.stringify(page([...store.deliveries.values()].filter((d) => d.webhook_id === w.id), r.query, deliveryView)));
    }
    throw notFoundOrMethod(r);
  }

  /** POST routes answer [status, body] so the idempotency layer can keep the answer. */
  function routePost(r: Request, body: unknown): [number, string] {
    const s = r.segments;
    const n = s.length;
    if (s[1] === 'runs' && n === 2) {
      const parsed = RunCreateParams.safeParse(body ?? {});
      if (!parsed.success) throw failureFromZod(parsed.error, body ?? {});
      return [201, JSON.stringify(service.createRun(parsed.data).run)];
    }
    if (s[1] === 'runs' && n === 4 && s[3] === 'cancel') return [200, JSON.stringify(service.cancel(s[2]!).run)];
    if (s[1] === 'runs' && n === 5 && s[3] === 'gates') {
      const [gate, action] = splitAction(s[4]!);
      if (action === 'approve' || action === 'reject') {
        service.getRun(s[2]!);
        let notes: string | null = null;
        if (action === 'reject') {
          const parsed = RejectParams.safeParse(body ?? {});
          if (!parsed.success) throw failureFromZod(parsed.error, body ?? {});
          notes = parsed.data.notes;
        } else if (body !== undefined) {
          const parsed = ApproveParams.safeParse(body);
          if (!parsed.success) throw failureFromZod(parsed.error, body);
          notes = parsed.data.notes?.trim() || null;
        }
        return [200, JSON.stringify(service.decide(s[2]!, gate, action === 'approve' ? 'approved' : 'rejected', notes))];
      }
    }
    if (s[1] === 'webhooks' && n === 2) {
      const w = dispatcher.register(body ?? {});
      return [201, JSON.stringify({ ...webhookView(w), secret: w.secret })];
    }
    if (s[1] === 'webhooks' && n === 5 && s[3] === 'deliveries') {
      const [deliveryId, action] = splitAction(s[4]!);
      if (action === 'redeliver') return [200, JSON.stringify(deliveryView(dispatcher.redeliver(s[2]!, deliveryId)))];
    }
    throw notFoundOrMethod(r);
  }

  function listRuns(query: URLSearchParams) {
    const status = query.get('status');
    if (status !== null && !(RUN_STATUSES as readonly string[]).includes(status))
      throw new Failure('invalid_value', `status must be one of ${RUN_STATUSES.join(', ')}`, 'status');
    const all = store.runOrder.map((id) => store.runs.get(id)!).filter((rec) => status === null || rec.run.status === status);
    return page(all, query, (rec) => rec.run);
  }

  function openStream(r: Request, rec: RunRecord): void {
    const { req, res } = r;
    const runId = rec.run.id;
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const last = Number.parseInt(String(req.headers['last-event-id'] ?? r.query.get('last_event_id') ?? '0'), 10);
    let chunk = 'retry: 2000\n\n';
    let lastSeq = Number.isFinite(last) ? last : 0;
    for (const ev of store.events.get(runId) ?? []) {
      if (ev.seq <= lastSeq) continue;
      chunk += sseFrame(ev);
      lastSeq = ev.seq;
    }
    res.write(chunk);
    if (isTerminal(rec)) return void res.end();
    let set = watchers.get(runId);
    if (!set) watchers.set(runId, (set = new Set()));
    const watcher: Watcher = { res, lastSeq };
    set.add(watcher);
    res.on('close', () => {
      set.delete(watcher);
      if (set.size === 0 && watchers.get(runId) === set) watchers.delete(runId);
    });
  }

  function serveFile(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, method: string): void {
    if (method !== 'GET' && method !== 'HEAD') throw new Failure('method_not_allowed', `${method} is not allowed on files`);
    const verdict = artifacts.verify(path, query.get('expires'), query.get('signature'));
    if (verdict === 'invalid') throw new Failure('signed_url_invalid', 'the signature of this file URL is not valid');
    if (verdict === 'expired') throw new Failure('signed_url_expired', 'this file URL has expired; ask for the artifact again for a fresh one');
    const [runId, kind, name] = path.split('/').slice(2).map(decodeSegment);
    const rec = store.runs.get(runId ?? '');
    const f = rec && kind && name ? artifacts.lookup(rec, kind, name) : null;
    if (!f) throw new Failure('route_not_found', 'no such file');
    const size = f.bytes.length;
    const headers: Record<string, string | number> = {
      'Content-Type': f.content_type,
      'Accept-Ranges': 'bytes',
      ETag: `"${f.sha256}"`,
      'Cache-Control': 'private, no-store',
      'Content-Disposition': `attachment; filename="${f.name.replace(/"/g, '')}"`,
    };
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${size}`);
      throw new Failure('range_not_satisfiable', `the range ${req.headers.range} is outside the file (${size} bytes)`);
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    headers['Content-Length'] = end - start + 1;
    res.writeHead(range ? 206 : 200, headers);
    res.end(method === 'HEAD' ? undefined : f.bytes.subarray(start, end + 1));
  }

  function origin(req: IncomingMessage): string {
    return `http://${req.headers.host ?? `${opts.host}:${port}`}`;
  }

  const server: Server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 0 }, (req, res) => void handle(req, res));
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
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
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${hostForUrl}:${port}`,
    host: opts.host,
    port,
    service,
    store,
    close() {
      closing ??= (async () => {
        draining = true;
        clearInterval(keepAlive);
        service.stop();
        dispatcher.stop();
        for (const set of watchers.values()) for (const w of set) w.res.end();
        watchers.clear();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const force = setTimeout(() => {
          for (const s of sockets) s.destroy();
        }, 2_000);
        await closed;
        clearTimeout(force);
        store.close();
      })();
      return closing;
    },
  };
}

function sseFrame(ev: StoredEvent): string {
  return `id: ${ev.seq}\nevent: ${ev.type}\ndata: ${ev.json}\n\n`;
}

function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const busy = !(err instanceof Failure) && /database is (locked|busy)/i.test((err as Error)?.message ?? '');
  const failure =
    err instanceof Failure ? err : busy ? new Failure('unavailable', 'the sandbox database is busy; retry shortly', undefined, { 'Retry-After': '1' }) : new Failure('internal_error', 'the sandbox hit an unexpected error');
  if (!(err instanceof Failure) && !busy) process.emitWarning(`sandbox internal error: ${(err as Error)?.stack ?? String(err)}`);
  for (const [k, v] of Object.entries(failure.headers)) res.setHeader(k, v);
  sendJson(res, failure.status, failure.toBody());
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function splitAction(segment: string): [string, string] {
  const i = segment.lastIndexOf(':');
  return i < 0 ? [segment, ''] : [segment.slice(0, i), segment.slice(i + 1)];
}

function notFoundOrMethod(r: Request): Failure {
  return new Failure('route_not_found', `no route ${r.method} /${r.segments.join('/')}`);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Failure('body_too_large', `the request body is larger than ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type && type !== 'application/json' && type !== 'application/merge-patch+json')
    throw new Failure('unsupported_media_type', `send JSON (application/json), not ${type}`);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new Failure('invalid_json', `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** JSON with sorted keys: the same request body, however its keys are ordered, has one fingerprint. */
function canonicalJson(v: unknown): string {
  if (v === undefined) return '';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

/** A page of items (oldest first in `all`), newest first, after the opaque cursor. */
function page<T extends { seq: number }, V>(all: T[], query: URLSearchParams, view: (item: T) => V) {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new Failure('invalid_value', 'limit must be a whole number from 1 to 100', 'limit');
  const cursor = query.get('cursor');
  let before = Number.POSITIVE_INFINITY;
  if (cursor) {
    const m = /^c(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
    if (!m) throw new Failure('invalid_value', 'cursor is not one this service gave out', 'cursor');
    before = Number(m[1]);
  }
  const data: V[] = [];
  let i = all.length - 1;
  while (i >= 0 && all[i]!.seq >= before) i--;
  let lastSeq = 0;
  for (; i >= 0 && data.length < limit; i--) {
    data.push(view(all[i]!));
    lastSeq = all[i]!.seq;
  }
  const hasMore = i >= 0;
  return { data, next_cursor: hasMore ? Buffer.from(`c${lastSeq}`, 'latin1').toString('base64url') : null, has_more: hasMore };
}

