// The one request loop every command uses: auth, timeouts, retries with the same Idempotency-Key,
// Retry-After within a cap, typed errors, pagination. It knows HTTP and the contract, nothing of terminals.
import { randomUUID } from 'node:crypto';
import type { ZodMiniType } from 'zod/mini';
import { isLoopbackHost, redactKey } from '../contract/keys.js';
import { ErrorEnvelope, pageOf } from '../contract/schemas.js';
import { ApiConnectionError, ApiError, RetryLaterError, UnexpectedResponseError, UnsafeRequestError } from './errors.js';
import { Agent } from './transport.js';

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  connectTimeoutMs?: number;
  /** Time allowed for the answer's headers, and between chunks of its body. */
  timeoutMs?: number;
  /** The longest Retry-After orc waits out; a longer one fails at once (exit 3). */
  maxRetryAfterS?: number;
  /** The HTTP exchange, for --debug; the key is redacted before it gets here. */
  debug?: (line: string) => void;
  /** One line when orc waits before retrying. */
  notice?: (line: string) => void;
  /** Called once when the first connection is refused; true means "try again now" (the sandbox was started). */
  onConnectionRefused?: () => Promise<boolean>;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export type Query = Record<string, string | number | undefined | null>;

export interface OpenStream {
  status: number;
  contentType: string | null;
  requestId: string | null;
  body: AsyncIterable<Buffer> & { destroy(err?: Error): void };
}

export interface RequestOptions<T> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Starts with /v1; ids in it already percent-encoded (the resources do that). */
  path: string;
  query?: Query;
  body?: unknown;
  contentType?: string;
  schema: ZodMiniType<T>;
  /** For a POST: one key per logical request, reused on every retry. Generated when absent. */
  idempotencyKey?: string;
}

const RETRYABLE_NETWORK = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED',
]);
const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict',
  413: 'Content Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Content', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};
const MAX_REDIRECTS = 5;
const DEBUG_BODY_LIMIT = 4096;

export class ApiClient {
  readonly base: URL;
  private readonly agent: Agent;
  private readonly opts: Required<Omit<ClientOptions, 'debug' | 'notice' | 'onConnectionRefused'>> & Pick<ClientOptions, 'debug' | 'notice' | 'onConnectionRefused'>;

  constructor(options: ClientOptions) {
    this.opts = {
      maxRetries: 4,
      connectTimeoutMs: 10_000,
      timeoutMs: 60_000,
      maxRetryAfterS: 30,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      random: Math.random,
      ...options,
    };
    this.base = new URL(options.baseUrl);
    this.agent = new Agent({ connect: { timeout: this.opts.connectTimeoutMs }, headersTimeout: this.opts.timeoutMs, bodyTimeout: this.opts.timeoutMs, keepAliveTimeout: 4_000 });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** The absolute URL of a path on the service, refusing what would expose the key. */
  urlFor(path: string, query?: Query): URL {
    const url = new URL(this.base.href.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    assertSafe(url);
    return url;
  }

  async request<T>(req: RequestOptions<T>): Promise<T> {
    const { text, status, requestId } = await this.exchange(req);
    let json: unknown;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      throw new UnexpectedResponseError(`the service answered ${status} with a body that is not JSON`, requestLine(requestId));
    }
    const parsed = req.schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UnexpectedResponseError(`the service's answer is not of the expected shape (${issue.path.join('.') || 'body'}: ${issue.message})`, requestLine(requestId));
    }
    return parsed.data;
  }

  /** Opens a long-lived stream (SSE): one attempt, no body timeout; whoever reads it decides on reconnecting.
   * A non-2xx answer becomes the same typed errors as `request`. */
  async openStream(path: string, { headers = {}, signal }: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<OpenStream> {
    const url = this.urlFor(path);
    const all = { authorization: `Bearer ${this.opts.apiKey}`, 'user-agent': this.opts.userAgent, accept: 'text/event-stream', ...headers };
    this.debugRequest('GET', url, all, undefined);
    const started = Date.now();
    let res;
    try {
      res = await this.agent.request({ origin: url.origin, path: url.pathname + url.search, method: 'GET', headers: all, bodyTimeout: 0, ...(signal ? { signal } : {}) });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      throw Object.assign(new ApiConnectionError(`cannot reach ${url.origin}: ${describeNetwork(code) || (err as Error).message}`), { code });
    }
    const status = res.statusCode;
    const requestId = headerValue(res.headers['x-request-id']);
    if (status < 200 || status >= 300) {
      const text = await res.body.text().catch(() => '');
      this.debugResponse(status, Date.now() - started, res.headers, text);
      if (status >= 300 && status < 400) {
        const next = new URL(headerValue(res.headers.location) ?? '', url);
        if (next.origin !== url.origin) throw new UnsafeRequestError(`the service redirected to ${next.origin}; orc does not follow a redirect to another host with your key`);
      }
      throw parseError(status, text, headerValue(res.headers['content-type']), requestId);
    }
    this.debugResponse(status, Date.now() - started, res.headers, '');
    return { status, contentType: headerValue(res.headers['content-type']), requestId, body: res.body as AsyncIterable<Buffer> & { destroy(err?: Error): void } };
  }

  /** Every item of a list endpoint, page after page. */
  async *paginate<T>(path: string, item: ZodMiniType<T>, query: Query = {}): AsyncGenerator<T> {
    const schema = pageOf(item) as unknown as ZodMiniType<{ data: T[]; next_cursor: string | null; has_more: boolean }>;
    let cursor: string | null = null;
    do {
      const page: { data: T[]; next_cursor: string | null; has_more: boolean } = await this.request({ method: 'GET', path, query: { ...query, cursor }, schema });
      yield* page.data;
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
  }

  /** One logical request: attempts, retries and redirects, to a final answer (2xx) or a typed error. */
  private async exchange(req: RequestOptions<unknown>): Promise<{ text: string; status: number; requestId: string | null }> {
    let url = this.urlFor(req.path, req.query);
    const idempotencyKey = req.method === 'POST' ? (req.idempotencyKey ?? randomUUID()) : undefined;
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    let refusedOnce = false;
    let redirects = 0;
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${this.opts.apiKey}`,
        'user-agent': this.opts.userAgent,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': req.contentType ?? 'application/json' } : {}),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        ...(attempt > 0 ? { 'x-orc-retry-count': String(attempt) } : {}),
      };
      this.debugRequest(req.method, url, headers, body);
      const started = Date.now();
      let res;
      try {
        res = await this.agent.request({ origin: url.origin, path: url.pathname + url.search, method: req.method, headers, body });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        this.opts.debug?.(`! ${code || (err as Error).name}: ${(err as Error).message}`);
        if (code === 'ECONNREFUSED' && !refusedOnce && this.opts.onConnectionRefused) {
          refusedOnce = true;
          if (await this.opts.onConnectionRefused()) {
            attempt--;
            continue;
          }
        }
        if (RETRYABLE_NETWORK.has(code) && attempt < this.opts.maxRetries) {
          await this.wait(this.backoff(attempt), `${describeNetwork(code)}`, attempt);
          continue;
        }
        throw new ApiConnectionError(`cannot reach ${url.origin}: ${describeNetwork(code) || (err as Error).message}`, attempt > 0 ? `Tried ${attempt + 1} times.` : undefined);
      }
      let text: string;
      try {
        text = await res.body.text();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (RETRYABLE_NETWORK.has(code) && attempt < this.opts.maxRetries) {
          await this.wait(this.backoff(attempt), describeNetwork(code), attempt);
          continue;
        }
        throw new ApiConnectionError(`the connection to ${url.origin} broke while reading the answer: ${describeNetwork(code) || (err as Error).message}`);
      }
      const status = res.statusCode;
      const requestId = headerValue(res.headers['x-request-id']);
      this.debugResponse(status, Date.now() - started, res.headers, text);

      if (status >= 300 && status < 400) {
        const location = headerValue(res.headers.location);
        if (!location) throw new ApiError({ status, type: 'api_error', code: `http_${status}`, message: `the service answered ${status} without a Location`, requestId });
        const next = new URL(location, url);
        if (next.origin !== url.origin)
          throw new UnsafeRequestError(`the service redirected to ${next.origin}; orc does not follow a redirect to another host with your key`, `Check the base URL (--base-url, ORC_BASE_URL or the profile). ${requestLine(requestId)}`);
        if (++redirects > MAX_REDIRECTS) throw new ApiConnectionError(`too many redirects from ${url.origin}`);
        url = next;
        attempt--;
        continue;
      }
      if (status >= 200 && status < 300) return { text, status, requestId };

      const error = parseError(status, text, headerValue(res.headers['content-type']), requestId);
      const retryAfter = parseRetryAfter(headerValue(res.headers['retry-after']));
      if (retryAfter !== null && retryAfter > this.opts.maxRetryAfterS) {
        const at = new Date(Date.now() + retryAfter * 1000);
        throw new RetryLaterError(`${error.message}: the service asks to retry in ${formatWait(retryAfter)}, after ${at.toISOString()}`, requestLine(requestId));
      }
      const retryable = status === 408 || status === 429 || status >= 500 || (status === 409 && error.code === 'idempotency_key_in_use');
      if (retryable && attempt < this.opts.maxRetries) {
        await this.wait(retryAfter !== null ? retryAfter * 1000 : this.backoff(attempt), `${status} ${error.code}`, attempt);
        continue;
      }
      throw error;
    }
  }

  /** min(0.5 s · 2^n, 8 s), less up to a quarter at random, so many clients do not retry in step. */
  private backoff(attempt: number): number {
    return Math.min(500 * 2 ** attempt, 8000) * (1 - 0.25 * this.opts.random());
  }

  private async wait(ms: number, why: string, attempt: number): Promise<void> {
    this.opts.notice?.(`${why}; retrying in ${formatWait(ms / 1000)} (attempt ${attempt + 2} of ${this.opts.maxRetries + 1})`);
    await this.opts.sleep(ms);
  }

  private debugRequest(method: string, url: URL, headers: Record<string, string>, body: string | undefined): void {
    const debug = this.opts.debug;
    if (!debug) return;
    debug(`> ${method} ${url.href}`);
    for (const [k, v] of Object.entries(headers)) debug(`> ${k}: ${k === 'authorization' ? `Bearer ${redactKey(this.opts.apiKey)}` : v}`);
    if (body !== undefined) debug(`> ${truncate(body)}`);
  }

  private debugResponse(status: number, ms: number, headers: Record<string, string | string[] | undefined>, text: string): void {
    const debug = this.opts.debug;
    if (!debug) return;
    debug(`< ${status} ${STATUS_TEXT[status] ?? ''} (${ms} ms)`);
    for (const [k, v] of Object.entries(headers)) debug(`< ${k}: ${Array.isArray(v) ? v.join(', ') : v}`);
    if (text) debug(`< ${truncate(text)}`);
  }
}

/** The key never travels over plain http except to this machine. */
export function assertSafe(url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return;
  if (url.protocol === 'http:')
    throw new UnsafeRequestError(`refusing to send your key over plain http to ${url.host}`, 'Use an https:// base URL; plain http is only for a sandbox on this machine.');
  throw new UnsafeRequestError(`the base URL must be http(s), not ${url.protocol}`);
}

function parseError(status: number, text: string, contentType: string | null, requestId: string | null): ApiError {
  let envelope: ReturnType<typeof ErrorEnvelope.safeParse> | null = null;
  try {
    envelope = ErrorEnvelope.safeParse(JSON.parse(text));
  } catch {
    envelope = null;
  }
  if (envelope?.success) {
    const e = envelope.data.error;
    return new ApiError({ status, type: e.type, code: e.code, message: e.message, field: e.field, requestId }, requestLine(requestId, status, e.code));
  }
  // A proxy's HTML page, an empty body, JSON of another shape: say what came, never parse further.
  const what = text.length === 0 ? 'an empty body' : `${(contentType ?? 'unknown type').split(';')[0]}, ${text.length} bytes`;
  return new ApiError(
    { status, type: status >= 500 ? 'api_error' : 'invalid_request_error', code: `http_${status}`, message: `the service answered ${status} ${STATUS_TEXT[status] ?? ''} (${what}, not the service's error format)`.replace('  ', ' '), requestId },
    requestLine(requestId, status),
  );
}

function requestLine(requestId: string | null, status?: number, code?: string): string | undefined {
  const parts = [status ? `HTTP ${status}` : null, code ?? null, requestId ? `request id ${requestId}` : null].filter(Boolean);
  return parts.length ? `(${parts.join(', ')})` : undefined;
}

/** Seconds from `Retry-After`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function headerValue(v: string | string[] | undefined): string | null {
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

function describeNetwork(code: string): string {
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    EPIPE: 'connection closed',
    ETIMEDOUT: 'connection timed out',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'DNS lookup failed',
    UND_ERR_SOCKET: 'connection closed by the other side',
    UND_ERR_CLOSED: 'connection closed',
    UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
    UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for an answer',
    UND_ERR_BODY_TIMEOUT: 'timed out reading the answer',
  };
  return known[code] ?? code;
}

function formatWait(s: number): string {
  if (s < 10) return `${Math.round(s * 10) / 10} s`;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

function truncate(s: string): string {
  return s.length > DEBUG_BODY_LIMIT ? `${s.slice(0, DEBUG_BODY_LIMIT)}… (${s.length} bytes)` : s;
}
