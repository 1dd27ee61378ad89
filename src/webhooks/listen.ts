// `orc webhook listen`: a local receiver with a webhook registered at it for as long as it runs.
// Every delivery's signature is checked (an invalid one is answered 400), each is answered 2xx at once,
// duplicates (at-least-once delivery) are dropped by event id, and each verified event is reported and,
// with a forward URL, POSTed to the user's app with its original body and headers, retried as the one
// retry policy says (src/api/retry.ts).
// The webhook is removed when the listener stops; one left by a listener that was killed is removed by
// the next. A periodic check says when the service is unreachable and ends the listener (exit 1) when its
// webhook cannot be kept registered.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApiError, type Api } from '../api/index.js';
import { MAX_ERROR_BYTES, readText } from '../api/answer.js';
import { RETRY_CURVE, retriesStatus } from '../api/retry.js';
import { Transport } from '../api/transport.js';
import { sleep, type Clock } from '../lib/clock.js';
import type { WebhookCreateParams } from '../contract/schemas.js';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, verifySignature } from '../contract/signature.js';
import { writeJsonFile } from '../config/json-file.js';
import { EnvironmentError, FailedError } from '../exit/errors.js';
import { backoff } from '../lib/backoff.js';
import { isAlive as alive } from '../lib/pid.js';
import { parseServiceJson } from '../lib/sanitize.js';

const MAX_BODY = 1 << 20;
const FORWARD_ATTEMPTS = 4;
const FORWARD_TIMEOUT_MS = 10_000;
const SEEN_LIMIT = 10_000;
export const LISTEN_PATH = '/orc-listen';

export interface ListenOptions {
  host: string;
  port: number;
  events: WebhookCreateParams['events'];
  /** The address the service reaches this listener at; default http://host:port/orc-listen. */
  publicUrl?: string | undefined;
  forwardTo?: string | undefined;
  configDir: string;
  baseUrl: string;
  clock: Clock;
  signal: AbortSignal;
  /** How often the webhook is checked (ms). */
  checkMs: number;
  /** How long unreachable before saying so (ms). */
  unreachableMs: number;
}

export interface ForwardResult {
  status: number | null;
  /** The first lines of the app's answer when it was an error; or the network error. */
  detail: string;
  attempt: number;
  final: boolean;
}

export interface ListenEvents {
  ready(info: { url: string; localUrl: string; webhookId: string; secret: string; removedLeftovers: string[] }): void;
  event(raw: string, event: ReceivedEvent): void;
  duplicate(event: ReceivedEvent): void;
  invalid(reason: string, deliveryId: string | null): void;
  forwarded(event: ReceivedEvent, result: ForwardResult): void;
  notice(line: string): void;
}

export interface ReceivedEvent {
  id: string;
  type: string;
  run_id: string;
  data: Record<string, unknown>;
  deliveryId: string | null;
}

interface ListenerRecord {
  pid: number;
  webhook_id: string;
  base_url: string;
  started_at: string;
}

/**
 * Runs until the signal aborts (then cleans up and resolves, saying whether the webhook was removed) or the
 * webhook cannot be kept (rejects).
 */
export async function listen(api: Api, o: ListenOptions, ev: ListenEvents): Promise<{ removed: boolean }> {
  // A listener runs for hours: each of its requests has its own deadline, not one from its first request
  // (the removal at Ctrl-C after two minutes was refused at once as "no answer within 120 s").
  api.http.deadlinePerRequest();
  const removedLeftovers = await removeLeftovers(api, o);
  const forwarder = o.forwardTo ? new Forwarder(o.forwardTo, o.clock, o.signal, ev) : null;
  const receiver = new Receiver(o.clock, ev, forwarder);
  const server = await receiver.listen(o.host, o.port);
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = o.host.includes(':') ? `[${o.host}]` : o.host;
  const localUrl = `http://${hostForUrl}:${port}${LISTEN_PATH}`;
  const url = o.publicUrl ?? localUrl;
  const keeper = new Keeper(api, o, ev, url, receiver);
  try {
    await keeper.register();
  } catch (err) {
    server.close();
    throw err;
  }
  ev.ready({ url, localUrl, webhookId: keeper.webhookId, secret: receiver.secret!, removedLeftovers });
  let removed = false;
  try {
    await keeper.watch(() =>
      ev.ready({ url, localUrl, webhookId: keeper.webhookId, secret: receiver.secret!, removedLeftovers: [] }),
    );
  } finally {
    server.close();
    server.closeAllConnections();
    // What is being forwarded gets a moment to finish, then the webhook goes.
    await Promise.race([forwarder?.drain(), sleep(o.clock, 2000)]).catch(() => {});
    forwarder?.close();
    removed = await keeper.unregister();
  }
  return { removed };
}

/**
 * The receiving end: verifies every delivery against the webhook's secret (refusing all with 503 until
 * that is known), answers at once, drops duplicates by event id, reports each event and hands it on.
 */
class Receiver {
  /** Unknown until the webhook is registered: until then every delivery is refused (503), never checked. */
  secret: string | null = null;
  private readonly seen = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly ev: ListenEvents,
    private readonly forwarder: Forwarder | null,
  ) {}

  async listen(host: string, port: number): Promise<Server> {
    const http = process.getBuiltinModule('node:http') as typeof import('node:http');
    const server: Server = http.createServer((req, res) => void this.receive(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'EADDRINUSE'
            ? new EnvironmentError(
                `--port ${port}: the port is in use on ${host}; pick another, or leave --port out for a free one`,
              )
            : err,
        ),
      );
      server.listen(port, host, () => resolve());
    });
    return server;
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { ev } = this;
    if (req.method !== 'POST') {
      res
        .writeHead(405, { allow: 'POST', 'content-type': 'text/plain' })
        .end('orc webhook listen takes POSTed deliveries\n');
      return;
    }
    if (!this.secret) {
      refuse(res, 503, 'not_ready', 'this listener has no webhook secret yet', { 'retry-after': '1' });
      req.resume();
      return;
    }
    const body = await readBody(req, res);
    if (!body) return;
    const header = req.headers[SIGNATURE_HEADER];
    const deliveryId = (req.headers[DELIVERY_ID_HEADER] as string | undefined) ?? null;
    const check = verifySignature(this.secret, Array.isArray(header) ? header[0] : header, body, {
      nowMs: this.clock.now(),
    });
    if (!check.ok) {
      refuse(res, 400, 'invalid_signature', check.message);
      ev.invalid(check.message, deliveryId);
      return;
    }
    const event = parseEvent(body, deliveryId);
    if (!event) {
      refuse(res, 400, 'invalid_event', 'the body is not an event envelope');
      ev.invalid('a correctly signed body that is not an event envelope', deliveryId);
      return;
    }
    // Answered at once: the service's 10 s limit never depends on the app behind.
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    if (!this.firstSight(event.id)) return void ev.duplicate(event);
    ev.event(body.toString('utf8'), event);
    this.forwarder?.enqueue(body, forwardedHeaders(req), event);
  }

  /** Whether this event id is new (then remembered, the oldest forgotten past the limit). */
  private firstSight(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value!);
    return true;
  }
}

function refuse(res: ServerResponse, status: number, code: string, message: string, headers = {}): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ error: { code, message } }));
}

/** A delivery's body, up to 1 MiB; past that it is answered 413 and dropped (null). */
export async function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) {
      res.writeHead(413).end();
      req.destroy();
      return null;
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** The event of a verified body, or null when it is not an event envelope. Its text is cleaned where it
 * enters orc, like every answer of the service (the verified body itself is forwarded as it came). */
function parseEvent(body: Buffer, deliveryId: string | null): ReceivedEvent | null {
  try {
    const parsed = parseServiceJson(body.toString('utf8')) as Partial<ReceivedEvent>;
    if (typeof parsed.id !== 'string' || typeof parsed.type !== 'string') return null;
    return {
      id: parsed.id,
      type: parsed.type,
      run_id: String(parsed.run_id ?? ''),
      data: (parsed.data as Record<string, unknown>) ?? {},
      deliveryId,
    };
  } catch {
    return null;
  }
}

/** The headers the app gets: the delivery's signature and id, as the service sent them. */
function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'orc-webhook-listen' };
  for (const name of [SIGNATURE_HEADER, DELIVERY_ID_HEADER]) {
    const v = req.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  return headers;
}

/**
 * Hands verified events to the user's app, one at a time in the order received. A failed attempt is tried
 * again as the one retry policy says (src/api/retry.ts: a delivery is idempotent, the app dedupes it by its
 * event id), on the policy's curve.
 */
class Forwarder {
  private readonly queue: Array<() => Promise<void>> = [];
  private running: Promise<void> | null = null;
  private readonly target: URL;
  /** The client's own transport (node:http/https with keep-alive), never through a proxy: the app is local. */
  private readonly transport = new Transport({ connectTimeoutMs: FORWARD_TIMEOUT_MS });

  constructor(
    target: string,
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
    private readonly ev: ListenEvents,
  ) {
    this.target = new URL(target);
  }

  enqueue(body: Buffer, headers: Record<string, string>, event: ReceivedEvent): void {
    this.queue.push(() => this.forward(body, headers, event));
    void this.drain();
  }

  /** Resolves when everything queued has been forwarded (or given up on). */
  drain(): Promise<void> {
    this.running ??= (async () => {
      try {
        for (let next = this.queue.shift(); next; next = this.queue.shift()) await next();
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async forward(body: Buffer, headers: Record<string, string>, event: ReceivedEvent): Promise<void> {
    for (let attempt = 1; attempt <= FORWARD_ATTEMPTS; attempt++) {
      const result = await this.post(body, headers, attempt);
      this.ev.forwarded(event, result);
      if (result.final) return;
      await sleep(this.clock, backoff(attempt - 1, RETRY_CURVE), this.signal).catch(() => {});
    }
  }

  /** One attempt: the app's answer or the network's failure, final unless the retry policy grants another. */
  private async post(body: Buffer, headers: Record<string, string>, attempt: number): Promise<ForwardResult> {
    const last = attempt === FORWARD_ATTEMPTS || this.signal.aborted;
    const timeout = AbortSignal.timeout(FORWARD_TIMEOUT_MS);
    try {
      const res = await this.transport.request({
        url: this.target,
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.any([timeout, this.signal]),
      });
      const status = res.statusCode;
      const text = status >= 300 ? await readText(res.body, MAX_ERROR_BYTES, true).catch(() => '') : '';
      if (status < 300) res.body.resume();
      return { status, detail: firstLines(text), attempt, final: last || !retriesStatus(status, '', true) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      const why = timeout.aborted
        ? `no answer within ${FORWARD_TIMEOUT_MS / 1000} s`
        : this.signal.aborted
          ? 'stopped with the listener'
          : code || (err as Error).message;
      // A delivery is the same POST again: any failure to reach the app (one restarting, its name not resolving
      // yet, an answer it garbled) is worth the next try, not only the network errors the API client retries.
      return { status: null, detail: why, attempt, final: last };
    }
  }

  /** Its connections closed (the listener stops). */
  close(): void {
    this.transport.close();
  }
}

/**
 * Keeps the webhook: registers it (recording it, so a listener killed outright is cleaned up by the next),
 * checks it every interval (registered again when removed elsewhere; the service unreachable, or a long
 * sleep, said), and removes it at the end.
 */
class Keeper {
  webhookId = '';
  private readonly recordName = `listen-${process.pid}`;
  private readonly recordDir: string;

  constructor(
    private readonly api: Api,
    private readonly o: ListenOptions,
    private readonly ev: ListenEvents,
    private readonly url: string,
    private readonly receiver: Receiver,
  ) {
    this.recordDir = join(o.configDir, 'listeners');
  }

  async register(): Promise<void> {
    const created = await this.api.webhooks.create({ url: this.url, events: this.o.events });
    this.webhookId = created.id;
    this.receiver.secret = created.secret;
    const record: ListenerRecord = {
      pid: process.pid,
      webhook_id: created.id,
      base_url: this.o.baseUrl,
      started_at: new Date(this.o.clock.now()).toISOString(),
    };
    await writeJsonFile(this.recordDir, this.recordName, record);
  }

  /** Removes the webhook (gone already counts); false when it could not, which was said. */
  async unregister(): Promise<boolean> {
    if (!this.webhookId) return false;
    try {
      await this.api.webhooks.remove(this.webhookId);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) {
        this.ev.notice(
          `could not remove webhook ${this.webhookId} (${(err as Error).message}); the next \`orc webhook listen\` removes it`,
        );
        return false;
      }
    }
    rmSync(join(this.recordDir, `${this.recordName}.json`), { force: true });
    return true;
  }

  /** The watch on the webhook, until the signal aborts; `readyAgain` is told of a new registration. */
  async watch(readyAgain: () => void): Promise<void> {
    const { o, ev } = this;
    let unreachableSince: number | null = null;
    let lastCheck = o.clock.now();
    while (!o.signal.aborted) {
      await sleep(o.clock, o.checkMs, o.signal).catch(() => {});
      if (o.signal.aborted) break;
      const now = o.clock.now();
      // A long gap between two checks (the machine slept) is said, then checked at once.
      if (now - lastCheck > o.checkMs * 3 + 5000)
        ev.notice(
          `no check for ${Math.round((now - lastCheck) / 1000)} s (was the machine asleep?); checking the webhook now`,
        );
      lastCheck = now;
      try {
        // One attempt a check: the checks themselves are the retries, and a failure is news to count.
        await this.api.webhooks.retrieve(this.webhookId, { retries: 0 });
        if (unreachableSince !== null)
          ev.notice(
            `the service answers again (unreachable for ${Math.round((now - unreachableSince) / 1000)} s); deliveries it held are retried by it`,
          );
        unreachableSince = null;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          ev.notice(`webhook ${this.webhookId} was removed elsewhere; registering a new one`);
          rmSync(join(this.recordDir, `${this.recordName}.json`), { force: true });
          try {
            await this.register();
          } catch (again) {
            this.webhookId = '';
            throw new FailedError(`the webhook could not be registered again (${(again as Error).message}); stopping`);
          }
          readyAgain();
          continue;
        }
        if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
          throw new FailedError(
            `the service refuses the key now (${err.message}); the webhook cannot be kept; stopping`,
          );
        }
        unreachableSince ??= now;
        if (now - unreachableSince >= o.unreachableMs) {
          ev.notice(
            `the service has been unreachable for ${Math.round((now - unreachableSince) / 1000)} s (${(err as Error).message}); events are held by it and come when it is back`,
          );
        }
      }
    }
  }
}

/** Webhooks registered by listeners that are gone (killed): removed, with their records. */
async function removeLeftovers(api: Api, o: ListenOptions): Promise<string[]> {
  const dir = join(o.configDir, 'listeners');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^listen-\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    let record: ListenerRecord;
    try {
      record = JSON.parse(readFileSync(join(dir, name), 'utf8')) as ListenerRecord;
    } catch {
      rmSync(join(dir, name), { force: true });
      continue;
    }
    if (record.pid !== process.pid && alive(record.pid)) continue;
    if (record.base_url !== o.baseUrl) continue; // another service's: removed by a listener aimed there
    try {
      await api.webhooks.remove(record.webhook_id);
      removed.push(record.webhook_id);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) continue;
    }
    rmSync(join(dir, name), { force: true });
  }
  return removed;
}

function firstLines(text: string, lines = 3, chars = 300): string {
  const kept = text.split('\n').slice(0, lines).join('\n');
  return kept.length > chars ? `${kept.slice(0, chars)}…` : kept;
}
