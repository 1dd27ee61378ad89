// The one HTTP exchange under every request orc makes: headers, the key rules, redirects, retries with
// backoff and Retry-After, timeouts and the command's deadline, error mapping and request ids live here
// and nowhere else. JSON with a schema, event streams, keyless ranged downloads and raw requests are thin
// layers on `exchange`. It knows HTTP and the contract, nothing of terminals.
import { randomUUID } from 'node:crypto';
import type { ZodMiniType } from 'zod/mini';
import { systemClock, sleep, type Clock } from '../clock.js';
import { isLoopbackHost, redactKey } from '../contract/keys.js';
import { formatDuration } from '../duration.js';
import { ErrorEnvelope, pageOf } from '../contract/schemas.js';
import { ApiConnectionError, ApiError, RetryLaterError, UnexpectedResponseError, UnsafeRequestError } from './errors.js';
import { PageWalk } from './pages.js';
import { Transport } from './transport.js';

export interface HttpOptions {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  clock?: Clock;
  random?: () => number;
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  connectTimeoutMs?: number;
  /** One attempt with no answer (headers, or the next piece of the body) for this long is retried (30 s). */
  attemptTimeoutMs?: number;
  /** The command's deadline, from its first request (`--timeout`; 0: none). */
  deadlineMs?: number;
  /** The longest Retry-After orc waits out; a longer one fails at once (exit 3). */
  maxRetryAfterS?: number;
  /** The HTTP exchange, for --debug; the key is redacted before it gets here. */
  debug?: (line: string) => void;
  /** One line when orc waits before retrying. */
  notice?: (line: string) => void;
  /** Called once when the first connection is refused; true means "try again now" (the sandbox was started). */
  onConnectionRefused?: () => Promise<boolean>;
}

export type Query = Record<string, string | number | undefined | null>;

export type RequestBody =
  | { json: unknown; contentType?: string }
  | { bytes: Uint8Array | string; contentType?: string }
  /** Sent as it is read; a request with a stream body is never retried (it cannot be read twice). */
  | { stream: AsyncIterable<Uint8Array>; contentType?: string };

export interface SendOptions {
  method: string;
  /** A path on the service (`/v1/…`, ids already encoded) or an absolute URL. */
  target: string;
  query?: Query;
  /** Send the key (default). A signed URL is fetched without it. */
  auth?: boolean;
  headers?: Record<string, string>;
  body?: RequestBody;
  signal?: AbortSignal;
  /** Retries after the first attempt; default the client's. */
  retries?: number;
  /** For a POST: one key per logical request, reused on every retry. */
  idempotencyKey?: string;
  /** Bound by the command's deadline (default). Streams with idle rules of their own say false. */
  deadline?: boolean;
  /** Time allowed between pieces of the body once the headers came; default the attempt timeout, 0 none. */
  bodyTimeoutMs?: number;
  /** Answer a non-2xx status instead of throwing it, once retrying is over (a 503 or 429 is retried first): the raw layer, `orc api`. */
  anyStatus?: boolean;
}

export interface ResponseBody extends AsyncIterable<Buffer> {
  destroy(err?: Error): void;
}

export interface Answer {
  status: number;
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  header(name: string): string | null;
  requestId: string | null;
  body: ResponseBody;
}

/** The most of a JSON answer orc reads (CONTRACT.md, limits on input): memory stays bounded. */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;
const MAX_ERROR_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;
const DEBUG_BODY_LIMIT = 4096;

const RETRYABLE_NETWORK = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED', 'ORC_ATTEMPT_TIMEOUT',
]);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']);
export const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 206: 'Partial Content', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict',
  413: 'Content Too Large', 415: 'Unsupported Media Type', 416: 'Range Not Satisfiable', 422: 'Unprocessable Content', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/** Why an attempt was cut short by orc itself. */
type Cut = null | 'attempt' | 'deadline' | 'caller';

export class HttpClient {
  readonly base: URL;
  readonly clock: Clock;
  private readonly transport: Transport;
  private readonly opts: HttpOptions & Required<Pick<HttpOptions, 'maxRetries' | 'attemptTimeoutMs' | 'deadlineMs' | 'maxRetryAfterS' | 'random'>>;
  private refusedOnce = false;
  /** When the command's deadline falls: set by its first request. */
  private deadlineAt: number | null = null;
  private perRequestDeadline = false;

  constructor(options: HttpOptions) {
    this.opts = { maxRetries: 4, attemptTimeoutMs: 30_000, deadlineMs: 120_000, maxRetryAfterS: 30, random: Math.random, ...options };
    this.clock = options.clock ?? systemClock;
    this.base = new URL(options.baseUrl);
    // Timeouts past connecting are orc's own, on its clock.
    this.transport = new Transport(options.connectTimeoutMs ?? 10_000);
  }

  async close(): Promise<void> {
    this.transport.close();
  }

  /** Long-lived commands (watch) give each request the whole `--timeout`, not what is left of it. */
  deadlinePerRequest(): void {
    this.perRequestDeadline = true;
  }

  /** The absolute URL of a path on the service (or an absolute URL as given), with its query. */
  resolve(target: string, query?: Query): URL {
    const url = /^[a-z][a-z0-9+.-]*:/i.test(target) ? new URL(target) : new URL(this.base.href.replace(/\/+$/, '') + target);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    return url;
  }

  /** A request whose answer comes back with its body as a stream; non-2xx answers are typed errors. */
  send(req: SendOptions): Promise<Answer> {
    return this.exchange(req, async (a) => a);
  }

  /**
   * One logical request: attempts, retries and redirects, to a final answer handed to `consume`, whose
   * failure to read the body over the network counts as a failed attempt (and is retried like one).
   */
  async exchange<T>(req: SendOptions, consume: (answer: Answer) => Promise<T>): Promise<T> {
    const auth = req.auth ?? true;
    let url = this.resolve(req.target, req.query);
    if (auth) this.assertKeyMayGo(url);
    else assertHttp(url);
    const method = req.method.toUpperCase();
    const idempotencyKey = method === 'POST' ? (req.idempotencyKey ?? req.headers?.['idempotency-key']) : undefined;
    const body = encodeBody(req.body);
    const replayable = !(req.body && 'stream' in req.body);
    const idempotent = IDEMPOTENT_METHODS.has(method) || idempotencyKey !== undefined;
    const maxRetries = replayable ? (req.retries ?? this.opts.maxRetries) : 0;
    const useDeadline = (req.deadline ?? true) && this.opts.deadlineMs > 0;
    if (useDeadline && (this.deadlineAt === null || this.perRequestDeadline)) this.deadlineAt = this.clock.now() + this.opts.deadlineMs;

    // One controller for the whole logical request: the caller's signal and the deadline both end it.
    const whole = new AbortController();
    let cut: Cut = null;
    const onCallerAbort = () => {
      cut ??= 'caller';
      whole.abort();
    };
    req.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (req.signal?.aborted) onCallerAbort();
    const cancelDeadline = useDeadline
      ? this.clock.timer(Math.max(0, this.deadlineAt! - this.clock.now()), () => {
          cut ??= 'deadline';
          whole.abort();
        })
      : () => {};
    const deadlineError = () =>
      new ApiConnectionError(`no answer from ${url.host} within ${Math.round(this.opts.deadlineMs / 1000)} s`, 'The service may be slow or unreachable; allow longer with --timeout <seconds>.');

    let redirects = 0;
    try {
      for (let attempt = 0; ; attempt++) {
        if (cut === 'deadline') throw deadlineError();
        if (cut === 'caller') throw abortError();
        const headers: Record<string, string> = {
          'user-agent': this.opts.userAgent,
          accept: 'application/json',
          ...(auth ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
          ...(body ? { 'content-type': req.body!.contentType ?? body.contentType } : {}),
          ...lower(req.headers),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
          ...(attempt > 0 ? { 'x-orc-retry-count': String(attempt) } : {}),
        };
        if (!auth) delete headers.authorization; // a caller's header never smuggles the key to a signed URL
        this.debugRequest(method, url, headers, body?.debug);

        // One attempt: its own controller, cut by the whole request's, and by silence past the attempt timeout.
        const attemptCtl = new AbortController();
        const onWhole = () => attemptCtl.abort();
        // The caller's signal reaches the attempt directly too: a streamed body outlives this function.
        whole.signal.addEventListener('abort', onWhole, { once: true });
        req.signal?.addEventListener('abort', onWhole, { once: true });
        const unlink = () => {
          whole.signal.removeEventListener('abort', onWhole);
          req.signal?.removeEventListener('abort', onWhole);
        };
        let attemptCut = false;
        let disarm = () => {};
        const arm = (ms: number) => {
          disarm();
          disarm = ms > 0 ? this.clock.timer(ms, () => ((attemptCut = true), attemptCtl.abort())) : () => {};
        };
        const started = this.clock.now();
        let failure: { code: string; message: string } | null = null;
        let result: { value: T } | null = null;
        let answer: Answer | null = null;
        arm(this.opts.attemptTimeoutMs);
        try {
          const res = await this.transport.request({ url, method, headers, ...(body ? { body: body.payload } : {}), signal: attemptCtl.signal });
          const bodyTimeout = req.bodyTimeoutMs ?? this.opts.attemptTimeoutMs;
          answer = toAnswer(res as unknown as RawResponse, url, bodyTimeout > 0 ? () => arm(bodyTimeout) : () => {}, () => disarm());
          if (bodyTimeout > 0) arm(bodyTimeout);
          else disarm();
        } catch (err) {
          failure = networkFailure(err, attemptCut, this.opts.attemptTimeoutMs);
        }

        if (answer) {
          const status = answer.status;
          // Redirects: one rule for all. Same origin: followed. Another origin: never with the key.
          if (status >= 300 && status < 400 && status !== 304) {
            await drain(answer.body);
            disarm();
            this.debugResponse(status, this.clock.now() - started, answer.headers, '');
            const location = answer.header('location');
            if (!location) throw new ApiError({ status, type: 'api_error', code: `http_${status}`, message: `the service answered ${status} without a Location`, requestId: answer.requestId });
            const next = new URL(location, url);
            if (auth && next.origin !== url.origin)
              throw new UnsafeRequestError(
                `the service redirected to ${next.origin}; orc does not follow a redirect to another host with your key`,
                ['Check the base URL (--base-url, ORC_BASE_URL or the profile).', requestLine(answer.requestId)].filter(Boolean).join(' '),
              );
            if (!auth) assertHttp(next);
            if (++redirects > MAX_REDIRECTS) throw new ApiConnectionError(`too many redirects from ${url.origin}`);
            url = next;
            attempt--;
            unlink();
            continue;
          }
          if (status >= 200 && status < 300) {
            this.debugResponse(status, this.clock.now() - started, answer.headers, '');
            try {
              result = { value: await consume(answer) };
            } catch (err) {
              if (!isNetworkish(err) && !attemptCut && !whole.signal.aborted) throw err;
              failure = networkFailure(err, attemptCut, this.opts.attemptTimeoutMs);
              failure.message = `the connection broke while reading the answer (${failure.message})`;
            }
          } else {
            let text = '';
            try {
              text = await readText(answer.body, MAX_ERROR_BYTES, true);
            } catch (err) {
              failure = networkFailure(err, attemptCut, this.opts.attemptTimeoutMs);
            }
            disarm();
            if (!failure) {
              this.debugResponse(status, this.clock.now() - started, answer.headers, text);
              const error = parseError(status, text, answer.header('content-type'), answer.requestId);
              const retryAfter = parseRetryAfter(answer.header('retry-after'), this.clock.now());
              if (retryAfter !== null && retryAfter > this.opts.maxRetryAfterS) {
                const at = new Date(this.clock.now() + retryAfter * 1000);
                throw new RetryLaterError(`${error.message}: the service asks to retry in ${formatDuration(retryAfter * 1000)}, after ${at.toISOString()}`, requestLine(answer.requestId));
              }
              const retryable = idempotent
                ? status === 408 || status === 429 || status >= 500 || (status === 409 && error.code === 'idempotency_key_in_use')
                : status === 429 || status === 503;
              if (!retryable || attempt >= maxRetries) {
                if (!req.anyStatus) throw error;
                // The answer as it came (its body already read, up to the error cap), to the caller.
                const bytes = Buffer.from(text);
                const body: ResponseBody = { async *[Symbol.asyncIterator]() { yield bytes; }, destroy: () => {} };
                unlink();
                return consume({ ...answer, body });
              }
              // 0, negative or in the past: the normal backoff, never no wait at all.
              const ms = retryAfter !== null && retryAfter > 0 ? retryAfter * 1000 : this.backoff(attempt);
              unlink();
              await this.wait(ms, `${status} ${error.code}`, attempt, maxRetries, whole.signal);
              continue;
            }
          }
        }
        if (result) return result.value; // a streamed body keeps its silence timer and its link to the caller
        disarm();
        unlink();

        // No answer, or it broke off: the deadline and the caller win over any retry.
        if (cut === 'deadline') throw deadlineError();
        if (cut === 'caller') throw abortError();
        this.opts.debug?.(`! ${failure!.code}: ${failure!.message}`);
        if (failure!.code === 'ECONNREFUSED' && !this.refusedOnce && this.opts.onConnectionRefused) {
          this.refusedOnce = true;
          if (await this.opts.onConnectionRefused()) {
            attempt--;
            continue;
          }
        }
        const mayRetry = RETRYABLE_NETWORK.has(failure!.code) && (idempotent || failure!.code === 'ECONNREFUSED');
        if (mayRetry && attempt < maxRetries) {
          await this.wait(this.backoff(attempt), failure!.message, attempt, maxRetries, whole.signal);
          continue;
        }
        throw new ApiConnectionError(`cannot reach ${url.origin}: ${failure!.message}`, attempt > 0 ? `Tried ${attempt + 1} times.` : undefined);
      }
    } finally {
      cancelDeadline();
      req.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** JSON in, JSON out, checked against `schema`; the answer read with a 64 MiB cap. */
  async json<T>(req: Omit<SendOptions, 'body' | 'anyStatus'> & { body?: unknown; contentType?: string; schema: ZodMiniType<T>; onAnswer?: (answer: Answer) => void }): Promise<T> {
    const { body, contentType, schema, onAnswer, ...rest } = req;
    const method = req.method.toUpperCase();
    return this.exchange(
      {
        ...rest,
        ...(body !== undefined ? { body: { json: body, ...(contentType ? { contentType } : {}) } } : {}),
        ...(method === 'POST' ? { idempotencyKey: req.idempotencyKey ?? randomUUID() } : {}),
      },
      async (answer) => {
        onAnswer?.(answer);
        const text = await readText(answer.body, MAX_JSON_BYTES);
        this.opts.debug?.(`< ${truncate(text)}`);
        let json: unknown;
        try {
          json = text === '' ? null : JSON.parse(text);
        } catch {
          throw new UnexpectedResponseError(`the service answered ${answer.status} with a body that is not JSON`, requestLine(answer.requestId));
        }
        const parsed = schema.safeParse(json);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          throw new UnexpectedResponseError(`the service's answer is not of the expected shape (${issue.path.join('.') || 'body'}: ${issue.message})`, requestLine(answer.requestId));
        }
        return parsed.data;
      },
    );
  }

  /** Every item of a list endpoint, page after page. */
  async *paginate<T>(path: string, item: ZodMiniType<T>, query: Query = {}): AsyncGenerator<T> {
    const schema = pageOf(item) as unknown as ZodMiniType<{ data: T[]; next_cursor: string | null; has_more: boolean }>;
    const walk = new PageWalk(path);
    let cursor: string | null = null;
    do {
      const page: { data: T[]; next_cursor: string | null; has_more: boolean } = await this.json({ method: 'GET', target: path, query: { ...query, cursor }, schema });
      yield* page.data;
      cursor = walk.next(page.data.length, page.has_more, page.next_cursor);
    } while (cursor);
  }

  /** A file behind a signed URL: no key, optionally from byte `from` on (Range), the body as a stream. */
  download(url: string, { from, signal, idleMs }: { from?: number; signal?: AbortSignal; idleMs?: number } = {}): Promise<Answer> {
    return this.send({
      method: 'GET',
      target: url,
      auth: false,
      headers: { accept: '*/*', ...(from ? { range: `bytes=${from}-` } : {}) },
      deadline: false,
      ...(idleMs !== undefined ? { bodyTimeoutMs: idleMs } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  /** Any request, any answer: status, headers and body as they came (for `orc api`), read with the cap. */
  async raw(req: SendOptions): Promise<{ status: number; headers: Answer['headers']; requestId: string | null; text: string }> {
    return this.exchange({ ...req, anyStatus: true }, async (a) => ({ status: a.status, headers: a.headers, requestId: a.requestId, text: await readText(a.body, MAX_JSON_BYTES) }));
  }

  /** The key goes only to the service's own origin, over https or to this machine. */
  private assertKeyMayGo(url: URL): void {
    if (url.origin !== this.base.origin) throw new UnsafeRequestError(`refusing to send your key to ${url.origin}: it is not the service's address (${this.base.origin})`);
    assertSafe(url);
  }

  /** min(0.5 s · 2^n, 8 s), less up to a quarter at random, so many clients do not retry in step. */
  private backoff(attempt: number): number {
    return Math.min(500 * 2 ** attempt, 8000) * (1 - 0.25 * this.opts.random());
  }

  private async wait(ms: number, why: string, attempt: number, maxRetries: number, signal: AbortSignal): Promise<void> {
    this.opts.notice?.(`${why}; retrying in ${formatDuration(ms)} (attempt ${attempt + 2} of ${maxRetries + 1})`);
    await sleep(this.clock, ms, signal);
  }

  private debugRequest(method: string, url: URL, headers: Record<string, string>, body: string | undefined): void {
    const debug = this.opts.debug;
    if (!debug) return;
    debug(`> ${method} ${url.href}`);
    for (const [k, v] of Object.entries(headers)) debug(`> ${k}: ${k === 'authorization' ? `Bearer ${redactKey(this.opts.apiKey)}` : v}`);
    if (body !== undefined) debug(`> ${truncate(body)}`);
  }

  private debugResponse(status: number, ms: number, headers: Answer['headers'], text: string): void {
    const debug = this.opts.debug;
    if (!debug) return;
    debug(`< ${status} ${STATUS_TEXT[status] ?? ''} (${Math.round(ms)} ms)`);
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

function assertHttp(url: URL): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UnsafeRequestError(`orc fetches only http(s) URLs, not ${url.protocol}`);
}

function encodeBody(body: RequestBody | undefined): { payload: string | Uint8Array | AsyncIterable<Uint8Array>; contentType: string; debug?: string } | null {
  if (!body) return null;
  if ('json' in body) {
    const text = JSON.stringify(body.json);
    return { payload: text, contentType: 'application/json', debug: text };
  }
  if ('bytes' in body) return { payload: body.bytes, contentType: 'application/octet-stream', debug: typeof body.bytes === 'string' ? body.bytes : `(${body.bytes.byteLength} bytes)` };
  return { payload: body.stream, contentType: 'application/octet-stream', debug: '(a stream)' };
}

function lower(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

interface RawResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: ResponseBody & { on(event: string, fn: (...a: unknown[]) => void): unknown };
}

/** The answer, with a body whose every chunk re-arms the attempt's silence timer and whose end disarms it. */
function toAnswer(res: RawResponse, url: URL, onChunk: () => void, onEnd: () => void): Answer {
  const header = (name: string) => {
    const v = res.headers[name.toLowerCase()];
    return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
  };
  const raw = res.body;
  raw.on('error', () => {}); // read errors reach the reader through iteration
  // A response cut short ends its iteration quietly in Node; it must fail like the broken connection it is.
  let complete = false;
  (raw as unknown as { once(e: string, f: () => void): void }).once('end', () => (complete = true));
  const body: ResponseBody = {
    async *[Symbol.asyncIterator]() {
      try {
        for await (const chunk of raw as AsyncIterable<Buffer>) {
          onChunk();
          yield chunk;
        }
        if (!complete && (raw as unknown as { aborted?: boolean; complete?: boolean }).complete === false)
          throw Object.assign(new Error('the answer broke off'), { code: 'ECONNRESET' });
      } finally {
        onEnd();
      }
    },
    destroy: (err?: Error) => {
      onEnd();
      raw.destroy(err);
    },
  };
  return { status: res.statusCode, url, headers: res.headers, header, requestId: header('x-request-id'), body };
}

/** All of a body as text, refusing more than `cap` bytes (it stops reading there: memory stays bounded). */
export async function readText(body: ResponseBody, cap: number, truncateQuietly = false): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) {
      body.destroy();
      if (truncateQuietly) break;
      throw new UnexpectedResponseError(`the answer is larger than ${Math.round(cap / 1024 / 1024)} MiB; orc stopped reading it`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function drain(body: ResponseBody): Promise<void> {
  try {
    for await (const _ of body);
  } catch {
    // an answer we do not read may break off: nothing lost
  }
}

function isNetworkish(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code ?? '';
  return RETRYABLE_NETWORK.has(code) || code === 'UND_ERR_ABORTED' || (err as Error)?.name === 'AbortError';
}

function networkFailure(err: unknown, attemptCut: boolean, attemptMs: number): { code: string; message: string } {
  if (attemptCut) return { code: 'ORC_ATTEMPT_TIMEOUT', message: `no answer within ${Math.round(attemptMs / 1000)} s` };
  const code = (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.name ?? '';
  return { code, message: describeNetwork(code) || (err as Error)?.message || String(err) };
}

function abortError(): Error {
  return Object.assign(new Error('the request was canceled'), { name: 'AbortError', code: 'ABORT_ERR' });
}

export function parseError(status: number, text: string, contentType: string | null, requestId: string | null): ApiError {
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
  const what = text.length === 0 ? 'an empty body' : `${(contentType ?? 'unknown type').split(';')[0]}, ${Buffer.byteLength(text)} bytes`;
  return new ApiError(
    { status, type: status >= 500 ? 'api_error' : 'invalid_request_error', code: `http_${status}`, message: `the service answered ${status} ${STATUS_TEXT[status] ?? ''} (${what}, not the service's error format)`.replace('  ', ' '), requestId },
    requestLine(requestId, status),
  );
}

export function requestLine(requestId: string | null, status?: number, code?: string): string | undefined {
  const parts = [status ? `HTTP ${status}` : null, code ?? null, requestId ? `request id ${requestId}` : null].filter(Boolean);
  return parts.length ? `(${parts.join(', ')})` : undefined;
}

/** The most a Retry-After is taken to say: a year. Beyond that a number is only a number that breaks dates. */
const RETRY_AFTER_CAP_S = 365 * 24 * 3600;

/**
 * Seconds from `Retry-After`: delta-seconds (possibly negative) or an HTTP date, clamped to a year either
 * way; null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  const at = /^-?\d+$/.test(v) ? null : Date.parse(v);
  const s = at === null ? Number(v) : Number.isNaN(at) ? null : Math.ceil((at - now) / 1000);
  return s === null ? null : Math.max(-RETRY_AFTER_CAP_S, Math.min(s, RETRY_AFTER_CAP_S));
}

export function describeNetwork(code: string): string {
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

function truncate(s: string): string {
  return s.length > DEBUG_BODY_LIMIT ? `${s.slice(0, DEBUG_BODY_LIMIT)}… (${s.length} bytes)` : s;
}
