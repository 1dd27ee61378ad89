// The one HTTP exchange under every request orc makes. JSON with a schema, event streams, keyless ranged
// downloads and raw requests are thin layers on `exchange`, which reads as the sequence it is: plan the
// request (the key rules, the body, the idempotency key), then attempt it until an answer is final, each
// attempt ending as a result, a redirect, an error answer or a broken connection, and each of those
// decided by one rule: the redirect rule here, the retry policy (retry.ts), the answer's reading and caps
// (answer.ts), the errors (errors.ts). It knows HTTP and the contract, nothing of terminals.
import type { ZodMiniType } from 'zod/mini';
import { systemClock, sleep, type Clock } from '../lib/clock.js';
import { isLoopbackHost, redactKey } from '../contract/keys.js';
import { errorEnvelope, isPageOf } from '../contract/shapes.js';
import type { Unknown } from '../contract/unknowns.js';

type Schemas = typeof import('../contract/schemas.js');
/** A read shape: a zod schema, or one named from contract/schemas.ts (loaded when first needed). */
export type SchemaRef<T> = ZodMiniType<T> | ((s: Schemas) => ZodMiniType<T>);
let schemas: Promise<Schemas> | undefined;
/** contract/schemas.ts and zod, loaded once, on demand. */
export const loadSchemas = (): Promise<Schemas> => (schemas ??= import('../contract/schemas.js'));
import { formatDuration } from '../lib/duration.js';
import {
  MAX_ERROR_BYTES,
  MAX_JSON_BYTES,
  drain,
  readText,
  toAnswer,
  withText,
  type Answer,
  type RawResponse,
} from './answer.js';
import {
  ApiConnectionError,
  ApiError,
  CERTIFICATE_CODES,
  RetryLaterError,
  UnexpectedResponseError,
  UnsafeRequestError,
  ClientSettingError,
  ClientClosedError,
  networkFailure,
  nothingListens,
  parseError,
  requestLine,
  untrustedCertificate,
} from './errors.js';
import { PageWalk } from './pages.js';
import { parseServiceJson } from '../lib/sanitize.js';
import { IDEMPOTENT_METHODS, RETRYABLE_NETWORK, RetryPolicy, parseRetryAfter, type Retry } from './retry.js';
import { Transport } from './transport.js';
import { traceHeaders, type TraceContext } from './trace.js';

export { MAX_JSON_BYTES, readText, type Answer, type ResponseBody } from './answer.js';
import { STATUS_TEXT } from '../lib/http1.js';
export { STATUS_TEXT };
export { describeNetwork, parseError, requestLine } from './errors.js';
export { parseRetryAfter } from './retry.js';

/** Where requests go and with which key. */
export interface TargetSettings {
  baseUrl: string;
  apiKey: string;
  /** A PEM file of CA certificates to trust besides the system's (a profile's --ca-file). */
  caFile?: string | undefined;
}

export interface HttpOptions {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  clock?: Clock;
  random?: () => number;
  /** Retries after the first attempt (default 4): a knob of the client, which tests and listeners set. */
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
  /**
   * What the tolerant reader let pass in an answer or event (`where`: its request line), for --debug and
   * ORC_TELL_UNKNOWN. Without it nothing is walked: the quick checks stay the whole cost of a read.
   */
  onUnknown?: (where: string, found: Unknown[]) => void;
  /** Called once when the first connection is refused; true means "try again now" (the sandbox was started). */
  onConnectionRefused?: () => Promise<boolean>;
  /** The environment, for the proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); none: no proxy. */
  env?: NodeJS.ProcessEnv;
  /** A PEM file of CA certificates to trust besides the system's (a profile's --ca-file). */
  caFile?: string;
  /** The W3C trace context every request carries (a command's TRACEPARENT), unless one is being handled
   * (withTrace: an MCP request's). */
  trace?: TraceContext | null;
}

/** A client whose target is found when it first sends (the library's `new Orc()`: env and profiles read
 * then, not in a constructor, which cannot wait). */
export type DeferredHttpOptions = Omit<HttpOptions, 'baseUrl' | 'apiKey' | 'caFile'> & {
  target: () => Promise<TargetSettings>;
};

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
  /** Retry only an answer that says to wait (429, 503), as for a non-idempotent request: a probe that must
   * see every other status and failure as it came (`orc verify`). */
  retryLimitsOnly?: boolean;
  /** For a POST: one key per logical request, reused on every retry. */
  idempotencyKey?: string;
  /** Bound by the command's deadline (default). Streams with idle rules of their own say false. */
  deadline?: boolean;
  /** Time allowed between pieces of the body once the headers came; default the attempt timeout, 0 none. */
  bodyTimeoutMs?: number;
  /** Answer a non-2xx status instead of throwing it, once retrying is over (a 503 or 429 is retried first): the raw layer, `orc api`. */
  anyStatus?: boolean;
  /** A download: its body read straight off the socket, and drained into a writer (Answer.body.drainInto). */
  wire?: boolean;
  /** Follow a redirect (default). False: a 3xx is an answer like any other (whose /healthz is it, if not ours). */
  redirects?: boolean;
  /** An event stream, open as long as its run goes: on connections of its own (transport.ts). */
  longLived?: boolean;
}

const MAX_REDIRECTS = 5;
const DEBUG_BODY_LIMIT = 4096;

/** An answer read whole, whatever its status (`orc api`): its status, headers, request id and text. */
export interface RawAnswer {
  status: number;
  headers: Answer['headers'];
  requestId: string | null;
  text: string;
}

/** A request as it will be sent, decided once before the first attempt. */
interface Plan {
  url: URL;
  method: string;
  auth: boolean;
  body: EncodedBody | null;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  idempotent: boolean;
  limitsOnly: boolean;
  maxRetries: number;
  bodyTimeoutMs: number;
}

/** How one attempt ended. */
type Outcome<T> = { kind: 'result'; value: T } | { kind: 'redirect'; to: URL } | ErrorAnswer | Broken;
type ErrorAnswer = { kind: 'error-answer'; answer: Answer; text: string; error: ApiError; retryAfterS: number | null };
type Failure = { code: string; message: string };
type Broken = { kind: 'broken'; failure: Failure };

export class HttpClient {
  readonly clock: Clock;
  private target: (TargetSettings & { base: URL; transport: Transport }) | null = null;
  private targetFound: Promise<void> | null = null;
  private readonly retry: RetryPolicy;
  private readonly opts: Omit<HttpOptions, 'baseUrl' | 'apiKey' | 'caFile'> &
    Required<Pick<HttpOptions, 'maxRetries' | 'attemptTimeoutMs' | 'deadlineMs' | 'maxRetryAfterS' | 'random'>>;
  private refusedOnce = false;
  /** When the command's deadline falls: set by its first request. */
  private deadlineAt: number | null = null;
  private perRequestDeadline = false;

  constructor(options: HttpOptions | DeferredHttpOptions) {
    // The key stays in the target only (never in the options every part is handed), and shows redacted there.
    const {
      baseUrl: _base,
      apiKey: _key,
      caFile: _ca,
      target: _find,
      ...rest
    } = options as Partial<HttpOptions> & Partial<DeferredHttpOptions>;
    this.opts = {
      maxRetries: 4,
      attemptTimeoutMs: 30_000,
      deadlineMs: 120_000,
      maxRetryAfterS: 30,
      random: Math.random,
      userAgent: options.userAgent,
      ...rest,
    };
    this.clock = options.clock ?? systemClock;
    this.retry = new RetryPolicy(this.opts);
    if ('target' in options) {
      const find = options.target;
      this.findTarget = () => (this.targetFound ??= find().then((t) => this.aim(t)));
    } else this.aim(options);
  }

  /** Where requests go, and the transport that takes them there (its CA file is the target's). */
  private aim(t: TargetSettings): void {
    // Timeouts past connecting are orc's own, on its clock.
    const transport = new Transport({
      connectTimeoutMs: this.opts.connectTimeoutMs ?? 10_000,
      ...(this.opts.env ? { env: this.opts.env } : {}),
      ...(t.caFile ? { caFile: t.caFile } : {}),
      ...(this.opts.debug ? { debug: this.opts.debug } : {}),
    });
    this.target = { baseUrl: t.baseUrl, apiKey: t.apiKey, caFile: t.caFile, base: new URL(t.baseUrl), transport };
  }

  private findTarget: (() => Promise<void>) | null = null;

  /** The service's address (a deferred client's once it has sent, or been asked `ready()`). */
  get base(): URL {
    if (!this.target) throw new Error('the client has not found its target yet: await ready() first');
    return this.target.base;
  }

  /** The target found (env, profiles) for a deferred client; at once for any other. */
  async ready(): Promise<TargetSettings> {
    if (!this.target) await this.findTarget!();
    const { baseUrl, apiKey, caFile } = this.target!;
    return { baseUrl, apiKey, ...(caFile ? { caFile } : {}) };
  }

  /** Closes the connections, and ends what is in flight: its requests and streams end with ClientClosedError,
   * and nothing is sent after. */
  async close(): Promise<void> {
    this.closed.abort();
    this.target?.transport.close();
  }

  private readonly closed = new AbortController();

  /** Aborted when the client is closed: what outlives one exchange (a stream's body, its waits) ends with it. */
  get lifetime(): AbortSignal {
    return this.closed.signal;
  }

  /** What a log line, JSON.stringify or util.inspect shows of the client: its address, never its key whole. */
  toJSON(): { baseUrl: string | null; key: string | null } {
    return { baseUrl: this.target?.baseUrl ?? null, key: this.target ? redactKey(this.target.apiKey) : null };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    const { baseUrl, key } = this.toJSON();
    return baseUrl ? `HttpClient { ${baseUrl}, key ${key} }` : 'HttpClient { target not found yet }';
  }

  /** Long-lived commands (watch) give each request the whole `--timeout`, not what is left of it. */
  deadlinePerRequest(): void {
    this.perRequestDeadline = true;
  }

  /** The absolute URL of a path on the service (or an absolute URL as given), with its query. */
  resolve(target: string, query?: Query): URL {
    const url = /^[a-z][a-z0-9+.-]*:/i.test(target)
      ? new URL(target)
      : new URL(this.base.href.replace(/\/+$/, '') + target);
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
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
    if (this.closed.signal.aborted) throw closedError();
    try {
      return await this.attempts(req, consume);
    } catch (err) {
      throw this.closed.signal.aborted ? closedError() : err;
    }
  }

  private async attempts<T>(req: SendOptions, consume: (answer: Answer) => Promise<T>): Promise<T> {
    if (!this.target) await this.findTarget!();
    const plan = this.plan(req);
    const caller = req.signal ? AbortSignal.any([req.signal, this.closed.signal]) : this.closed.signal;
    const scope = new RequestScope(this.clock, caller, this.deadline(req), this.opts.deadlineMs);
    let redirects = 0;
    try {
      for (let attempt = 0; ; attempt++) {
        scope.throwIfCut(plan.url);
        const outcome = await this.attempt(plan, attempt, req, scope, consume);
        if (outcome.kind === 'result') return outcome.value;
        if (outcome.kind === 'redirect') {
          if (++redirects > MAX_REDIRECTS) throw new ApiConnectionError(`too many redirects from ${plan.url.origin}`);
          plan.url = outcome.to;
          attempt--;
          continue;
        }
        if (outcome.kind === 'error-answer') {
          const retry = this.afterAnswer(plan, attempt, outcome, req.anyStatus ?? false);
          if (!retry) return await consume(withText(outcome.answer, outcome.text)); // the answer as it came
          await this.wait(retry, `${outcome.answer.status} ${outcome.error.code}`, attempt, scope.signal);
          continue;
        }
        const retry = await this.afterBroken(plan, attempt, outcome.failure, scope);
        if (retry === 'now') attempt--;
        else await this.wait(retry, outcome.failure.message, attempt, scope.signal);
      }
    } finally {
      scope.end();
    }
  }

  /**
   * After an error answer: the retry the policy grants; else the answer's error thrown, or (for a caller that
   * takes any status) null, the answer being final. A Retry-After longer than orc waits out fails at once.
   */
  private afterAnswer(plan: Plan, attempt: number, outcome: ErrorAnswer, anyStatus: boolean): Retry | null {
    const { answer, error, retryAfterS } = outcome;
    // A caller that only waits out limits (`orc verify`) takes a wait too long as the answer it is.
    if (this.retry.tooLong(retryAfterS) && anyStatus && plan.limitsOnly) return null;
    if (this.retry.tooLong(retryAfterS)) {
      const at = new Date(this.clock.now() + retryAfterS! * 1000);
      throw new RetryLaterError(
        `${error.message}: the service asks to retry in ${formatDuration(retryAfterS! * 1000)}, after ${at.toISOString()}`,
        requestLine(answer.requestId),
      );
    }
    const retry = this.retry.afterAnswer(
      { status: answer.status, code: error.code, retryAfterS },
      plan.idempotent && !plan.limitsOnly,
      attempt,
      plan.maxRetries,
    );
    if (retry || anyStatus) return retry;
    throw error;
  }

  /**
   * After no answer, or one that broke off: the retry the policy grants, or 'now' when the sandbox was just
   * started; else the failure thrown. The deadline and the caller win over any retry. A refused connection on
   * this machine is said at once with the command that starts a sandbox: nothing listens there.
   */
  private async afterBroken(
    plan: Plan,
    attempt: number,
    failure: Failure,
    scope: RequestScope,
  ): Promise<Retry | 'now'> {
    scope.throwIfCut(plan.url);
    this.opts.debug?.(`! ${failure.code}: ${failure.message}`);
    const refused = failure.code === 'ECONNREFUSED';
    if (refused && (await this.sandboxStarted())) return 'now';
    if (refused && isLoopbackHost(plan.url.hostname)) throw nothingListens(plan.url);
    const retry = plan.limitsOnly
      ? null
      : this.retry.afterBroken(failure.code, plan.idempotent, attempt, plan.maxRetries);
    if (retry) return retry;
    throw new ApiConnectionError(
      `cannot reach ${plan.url.origin}: ${failure.message}`,
      attempt > 0 ? `Tried ${attempt + 1} times.` : undefined,
    );
  }

  /** The first refused connection asks once whether a sandbox was started for it (then: try again now). */
  private async sandboxStarted(): Promise<boolean> {
    if (this.refusedOnce || !this.opts.onConnectionRefused) return false;
    this.refusedOnce = true;
    return this.opts.onConnectionRefused();
  }

  /** The request as it will be sent: the key rules checked, the body encoded, what may be retried. */
  private plan(req: SendOptions): Plan {
    const auth = req.auth ?? true;
    const url = this.resolve(req.target, req.query);
    if (auth) this.assertKeyMayGo(url);
    else assertHttp(url);
    const method = req.method.toUpperCase();
    const idempotencyKey = method === 'POST' ? (req.idempotencyKey ?? req.headers?.['idempotency-key']) : undefined;
    const replayable = !(req.body && 'stream' in req.body);
    return {
      url,
      method,
      auth,
      body: encodeBody(req.body),
      contentType: req.body?.contentType,
      idempotencyKey,
      idempotent: IDEMPOTENT_METHODS.has(method) || idempotencyKey !== undefined,
      limitsOnly: req.retryLimitsOnly ?? false,
      maxRetries: replayable ? (req.retries ?? this.opts.maxRetries) : 0,
      bodyTimeoutMs: req.bodyTimeoutMs ?? this.opts.attemptTimeoutMs,
    };
  }

  /** When this request's deadline falls, or null when it has none. */
  private deadline(req: SendOptions): number | null {
    if (!((req.deadline ?? true) && this.opts.deadlineMs > 0)) return null;
    if (this.deadlineAt === null || this.perRequestDeadline) this.deadlineAt = this.clock.now() + this.opts.deadlineMs;
    return this.deadlineAt;
  }

  /** The headers of one attempt: the key (never to a signed URL), the body's type, the trace, the retry count. */
  private headers(plan: Plan, req: SendOptions, attempt: number): Record<string, string> {
    const trace = traceHeaders(this.opts.trace);
    if (trace.dropped) this.opts.debug?.(trace.dropped);
    const headers: Record<string, string> = {
      'user-agent': this.opts.userAgent,
      accept: 'application/json',
      ...(plan.auth ? { authorization: `Bearer ${this.target!.apiKey}` } : {}),
      ...(plan.body ? { 'content-type': plan.contentType ?? plan.body.contentType } : {}),
      ...trace.headers,
      ...lower(req.headers),
      ...(plan.idempotencyKey ? { 'idempotency-key': plan.idempotencyKey } : {}),
      ...(attempt > 0 ? { 'x-orc-retry-count': String(attempt) } : {}),
    };
    if (!plan.auth) delete headers.authorization; // a caller's header never smuggles the key to a signed URL
    return headers;
  }

  /** One attempt, cut by silence past the attempt timeout, and by the whole request's end. */
  private async attempt<T>(
    plan: Plan,
    attempt: number,
    req: SendOptions,
    scope: RequestScope,
    consume: (answer: Answer) => Promise<T>,
  ): Promise<Outcome<T>> {
    const headers = this.headers(plan, req, attempt);
    this.debugRequest(plan.method, plan.url, headers, plan.body?.debug);
    const silence = new AttemptTimer(this.clock, scope.signal, req.signal);
    const started = this.clock.now();
    const opened = await this.open(plan, headers, req, silence);
    if ('kind' in opened) return opened;
    const answer = opened;
    const status = answer.status;
    if (status >= 300 && status < 400 && status !== 304 && req.redirects !== false) {
      await drain(answer.body);
      silence.end();
      this.debugResponse(status, this.clock.now() - started, answer.headers, '');
      return { kind: 'redirect', to: this.redirectTarget(plan, answer) };
    }
    if (status >= 200 && status < 300) {
      this.debugResponse(status, this.clock.now() - started, answer.headers, '');
      return this.consumed(answer, consume, silence, scope);
    }
    return this.errorAnswer(plan, answer, silence, started);
  }

  /** The request sent and its answer's head come, its body's silence timed; or how the connection failed. */
  private async open(
    plan: Plan,
    headers: Record<string, string>,
    req: SendOptions,
    silence: AttemptTimer,
  ): Promise<Answer | Broken> {
    silence.arm(this.opts.attemptTimeoutMs);
    try {
      const res = await this.target!.transport.request({
        url: plan.url,
        method: plan.method,
        headers,
        ...(plan.body ? { body: plan.body.payload } : {}),
        signal: silence.signal,
        ...(req.wire ? { wire: true } : {}),
        ...(req.longLived ? { longLived: true } : {}),
      });
      const bodyTimeout = plan.bodyTimeoutMs;
      const answer = toAnswer(
        res as unknown as RawResponse,
        plan.url,
        bodyTimeout > 0 ? () => silence.arm(bodyTimeout) : () => {},
        () => silence.disarm(),
      );
      if (bodyTimeout > 0) silence.arm(bodyTimeout);
      else silence.disarm();
      return answer;
    } catch (err) {
      silence.end();
      // A certificate orc does not trust is a configuration to fix, not a network to wait out.
      if (CERTIFICATE_CODES.has((err as NodeJS.ErrnoException)?.code ?? '')) throw untrustedCertificate(plan.url, err);
      if (err instanceof ClientSettingError) throw err; // the transport's own (a proxy variable that is not a URL, an unreadable CA file)
      return { kind: 'broken', failure: networkFailure(err, silence.fired, this.opts.attemptTimeoutMs) };
    }
  }

  /** A 2xx answer handed to the caller, whose failure to read it over the network counts as a broken attempt. */
  private async consumed<T>(
    answer: Answer,
    consume: (answer: Answer) => Promise<T>,
    silence: AttemptTimer,
    scope: RequestScope,
  ): Promise<Outcome<T>> {
    try {
      // A streamed body keeps its silence timer and its link to the caller: not ended here.
      return { kind: 'result', value: await consume(answer) };
    } catch (err) {
      silence.end();
      if (!isNetworkish(err) && !silence.fired && !scope.signal.aborted) throw err;
      const failure = networkFailure(err, silence.fired, this.opts.attemptTimeoutMs);
      return {
        kind: 'broken',
        failure: { ...failure, message: `the connection broke while reading the answer (${failure.message})` },
      };
    }
  }

  /** A 4xx or 5xx: its body read (capped) into the error it says, with its Retry-After. */
  private async errorAnswer(
    plan: Plan,
    answer: Answer,
    silence: AttemptTimer,
    started: number,
  ): Promise<ErrorAnswer | Broken> {
    let text: string;
    try {
      text = await readText(answer.body, MAX_ERROR_BYTES, true);
    } catch (err) {
      silence.end();
      return { kind: 'broken', failure: networkFailure(err, silence.fired, this.opts.attemptTimeoutMs) };
    }
    silence.end();
    this.debugResponse(answer.status, this.clock.now() - started, answer.headers, text);
    const error = parseError(answer.status, text, answer.header('content-type'), answer.requestId);
    if (this.opts.onUnknown) await this.tellUnknownsOfError(`${plan.method} ${plan.url.pathname}`, text);
    return {
      kind: 'error-answer',
      answer,
      text,
      error,
      retryAfterS: parseRetryAfter(answer.header('retry-after'), this.clock.now()),
    };
  }

  /** An error answer's envelope, walked (see `onUnknown`); a body that is not one has nothing to tell. */
  private async tellUnknownsOfError(where: string, text: string): Promise<void> {
    let json: unknown;
    try {
      json = parseServiceJson(text);
    } catch {
      return;
    }
    if (errorEnvelope(json)) await this.tellUnknowns(where, json, (s) => s.ErrorEnvelope);
  }

  /** Redirects, one rule for all: same origin, followed; another origin, never with the key. */
  private redirectTarget(plan: Plan, answer: Answer): URL {
    const location = answer.header('location');
    if (!location)
      throw new ApiError({
        status: answer.status,
        type: 'api_error',
        code: `http_${answer.status}`,
        message: `the service answered ${answer.status} without a Location`,
        requestId: answer.requestId,
      });
    const next = new URL(location, plan.url);
    if (plan.auth && next.origin !== plan.url.origin)
      throw new UnsafeRequestError(
        `the service redirected to ${next.origin}; orc does not follow a redirect to another host with your key`,
        ['Check the base URL (--base-url, ORC_BASE_URL or the profile).', requestLine(answer.requestId)]
          .filter(Boolean)
          .join(' '),
      );
    if (!plan.auth) assertHttp(next);
    return next;
  }

  /**
   * JSON in, JSON out, checked against `schema`; the answer read with a 64 MiB cap. The schema may be named
   * from contract/schemas.ts (`(s) => s.Run`), which is then loaded only when needed, while the request is
   * on its way; `quick`, a check by hand (contract/shapes.ts), takes the common answer without it.
   */
  async json<T>(
    req: Omit<SendOptions, 'body' | 'anyStatus'> & {
      body?: unknown;
      contentType?: string;
      schema: SchemaRef<T>;
      quick?: (json: unknown) => json is T;
      onAnswer?: (answer: Answer) => void;
    },
  ): Promise<T> {
    const { body, contentType, schema, quick, onAnswer, ...rest } = req;
    const method = req.method.toUpperCase();
    const named = typeof schema === 'function' ? schema : null;
    if (named && !quick) void loadSchemas().catch(() => {});
    return this.exchange(
      {
        ...rest,
        ...(body !== undefined ? { body: { json: body, ...(contentType ? { contentType } : {}) } } : {}),
        ...(method === 'POST' ? { idempotencyKey: req.idempotencyKey ?? newIdempotencyKey() } : {}),
      },
      async (answer) => {
        onAnswer?.(answer);
        const text = await readText(answer.body, MAX_JSON_BYTES);
        this.opts.debug?.(`< ${truncate(text)}`);
        let json: unknown;
        try {
          json = text === '' ? null : parseServiceJson(text);
        } catch {
          throw new UnexpectedResponseError(
            `the service answered ${answer.status} with a body that is not JSON`,
            requestLine(answer.requestId),
          );
        }
        if (this.opts.onUnknown) await this.tellUnknowns(`${method} ${pathOf(req.target)}`, json, schema);
        if (quick?.(json)) return json;
        const parsed = (named ? named(await loadSchemas()) : (schema as ZodMiniType<T>)).safeParse(json);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          throw new UnexpectedResponseError(
            `the service's answer is not of the expected shape (${issue.path.join('.') || 'body'}: ${issue.message})`,
            requestLine(answer.requestId),
          );
        }
        return parsed.data;
      },
    );
  }

  /** Whether answers and events are walked for what the contract does not know (see `onUnknown`). */
  get tellsUnknowns(): boolean {
    return this.opts.onUnknown !== undefined;
  }

  /** Tells what `value` holds that `schema` let pass without knowing it (when asked to: `onUnknown`). */
  async tellUnknowns<T>(where: string, value: unknown, schema: SchemaRef<T>): Promise<void> {
    const tell = this.opts.onUnknown;
    if (!tell) return;
    const [s, { unknownsOf }] = await Promise.all([loadSchemas(), import('../contract/unknowns.js')]);
    const found = unknownsOf(typeof schema === 'function' ? schema(s) : schema, value);
    if (found.length > 0) tell(where, found);
  }

  /** Every item of a list endpoint, page after page. */
  async *paginate<T>(
    path: string,
    item: (s: Schemas) => ZodMiniType<T>,
    query: Query = {},
    quick?: (json: unknown) => json is T,
  ): AsyncGenerator<T> {
    type Page = { data: T[]; next_cursor: string | null; has_more: boolean };
    let page: ZodMiniType<Page> | undefined;
    const schema = (s: Schemas) => (page ??= s.pageOf(item(s)) as unknown as ZodMiniType<Page>);
    const quickPage = quick ? isPageOf(quick) : undefined;
    const walk = new PageWalk(path);
    let cursor: string | null = null;
    do {
      const page: Page = await this.json({
        method: 'GET',
        target: path,
        query: { ...query, cursor },
        schema,
        ...(quickPage ? { quick: quickPage } : {}),
      });
      yield* page.data;
      cursor = walk.next(page.data.length, page.has_more, page.next_cursor);
    } while (cursor);
  }

  /** A file behind a signed URL: no key, optionally from byte `from` on (Range), the body as a stream. */
  download(
    url: string,
    { from, signal, idleMs }: { from?: number; signal?: AbortSignal; idleMs?: number } = {},
  ): Promise<Answer> {
    return this.send({
      method: 'GET',
      target: url,
      auth: false,
      headers: { accept: '*/*', ...(from ? { range: `bytes=${from}-` } : {}) },
      deadline: false,
      wire: true,
      ...(idleMs !== undefined ? { bodyTimeoutMs: idleMs } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  /** Any request, any answer: status, headers and body as they came (for `orc api`), read with the cap. */
  async raw(req: SendOptions): Promise<RawAnswer> {
    return this.exchange({ ...req, anyStatus: true }, async (a) => ({
      status: a.status,
      headers: a.headers,
      requestId: a.requestId,
      text: await readText(a.body, MAX_JSON_BYTES),
    }));
  }

  /** The key goes only to the service's own origin, over https or to this machine. */
  private assertKeyMayGo(url: URL): void {
    if (url.origin !== this.base.origin)
      throw new UnsafeRequestError(
        `refusing to send your key to ${url.origin}: it is not the service's address (${this.base.origin})`,
      );
    assertSafe(url);
  }

  private async wait(retry: Retry, why: string, attempt: number, signal: AbortSignal): Promise<void> {
    const { waitMs, retries } = retry;
    this.opts.notice?.(`${why}; retrying in ${formatDuration(waitMs)} (attempt ${attempt + 2} of ${retries + 1})`);
    await sleep(this.clock, waitMs, signal);
  }

  private debugRequest(method: string, url: URL, headers: Record<string, string>, body: string | undefined): void {
    const debug = this.opts.debug;
    if (!debug) return;
    debug(`> ${method} ${url.href}`);
    for (const [k, v] of Object.entries(headers))
      debug(`> ${k}: ${k === 'authorization' ? `Bearer ${redactKey(this.target!.apiKey)}` : v}`);
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

/**
 * The life of one logical request: the caller's signal and the deadline both end it (and say which did);
 * every attempt is cut when it ends.
 */
class RequestScope {
  private readonly controller = new AbortController();
  private cut: null | 'deadline' | 'caller' = null;
  private readonly cancelDeadline: () => void;
  private readonly onCaller = () => this.stop('caller');

  constructor(
    clock: Clock,
    private readonly caller: AbortSignal | undefined,
    deadlineAt: number | null,
    private readonly deadlineMs: number,
  ) {
    caller?.addEventListener('abort', this.onCaller, { once: true });
    if (caller?.aborted) this.stop('caller');
    // A deadline already passed cuts the request before it starts, whatever the clock does with a 0 ms timer.
    if (deadlineAt !== null && deadlineAt <= clock.now()) this.stop('deadline');
    this.cancelDeadline =
      deadlineAt === null ? () => {} : clock.timer(Math.max(0, deadlineAt - clock.now()), () => this.stop('deadline'));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private stop(why: 'deadline' | 'caller'): void {
    this.cut ??= why;
    this.controller.abort();
  }

  throwIfCut(url: URL): void {
    if (this.cut === 'deadline')
      throw new ApiConnectionError(
        `no answer from ${url.host} within ${Math.round(this.deadlineMs / 1000)} s`,
        'The service may be slow or unreachable; allow longer with --timeout <seconds>.',
      );
    if (this.cut === 'caller')
      throw Object.assign(new Error('the request was canceled'), { name: 'AbortError', code: 'ABORT_ERR' });
  }

  end(): void {
    this.cancelDeadline();
    this.caller?.removeEventListener('abort', this.onCaller);
  }
}

/**
 * One attempt's signal: aborted by the whole request's end, by the caller directly (a streamed body outlives
 * the exchange), and by silence: armed for a span, re-armed by each piece of the answer, disarmed at its end.
 */
class AttemptTimer {
  private readonly controller = new AbortController();
  private cancel = () => {};
  /** The silence timer fired (not the caller, not the deadline). */
  fired = false;
  private readonly onAbort = () => this.controller.abort();

  constructor(
    private readonly clock: Clock,
    private readonly whole: AbortSignal,
    private readonly caller: AbortSignal | undefined,
  ) {
    whole.addEventListener('abort', this.onAbort, { once: true });
    caller?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(ms: number): void {
    this.cancel();
    this.cancel = ms > 0 ? this.clock.timer(ms, () => ((this.fired = true), this.controller.abort())) : () => {};
  }

  disarm(): void {
    this.cancel();
    this.cancel = () => {};
  }

  /** The attempt is over: no timer, no links. */
  end(): void {
    this.disarm();
    this.whole.removeEventListener('abort', this.onAbort);
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}

function closedError(): ClientClosedError {
  return new ClientClosedError('the client is closed (close(), or its sandbox stopped): nothing more is sent');
}

/** The key never travels over plain http except to this machine. */
export function assertSafe(url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return;
  if (url.protocol === 'http:')
    throw new UnsafeRequestError(
      `refusing to send your key over plain http to ${url.host}`,
      'Use an https:// base URL; plain http is only for a sandbox on this machine.',
    );
  throw new UnsafeRequestError(`the base URL must be http(s), not ${url.protocol}`);
}

function assertHttp(url: URL): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UnsafeRequestError(`orc fetches only http(s) URLs, not ${url.protocol}`);
}

interface EncodedBody {
  payload: string | Uint8Array | AsyncIterable<Uint8Array>;
  contentType: string;
  debug?: string;
}

function encodeBody(body: RequestBody | undefined): EncodedBody | null {
  if (!body) return null;
  if ('json' in body) {
    const text = JSON.stringify(body.json);
    return { payload: text, contentType: 'application/json', debug: text };
  }
  if ('bytes' in body)
    return {
      payload: body.bytes,
      contentType: 'application/octet-stream',
      debug: typeof body.bytes === 'string' ? body.bytes : `(${body.bytes.byteLength} bytes)`,
    };
  return { payload: body.stream, contentType: 'application/octet-stream', debug: '(a stream)' };
}

function lower(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

function isNetworkish(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code ?? '';
  return RETRYABLE_NETWORK.has(code) || code === 'UND_ERR_ABORTED' || (err as Error)?.name === 'AbortError';
}

function truncate(s: string): string {
  return s.length > DEBUG_BODY_LIMIT ? `${s.slice(0, DEBUG_BODY_LIMIT)}… (${s.length} bytes)` : s;
}

/** A fresh idempotency key (a random UUID). node:crypto is taken when the first POST needs it: imported at
 * the top it loads some twenty modules of Node's, a few milliseconds at every command. */
function newIdempotencyKey(): string {
  return (process.getBuiltinModule('node:crypto') as typeof import('node:crypto')).randomUUID();
}

/** A request's path without its query, for naming it (`GET /v1/runs/run_1`). */
function pathOf(target: string): string {
  return new URL(target, 'http://service.invalid').pathname;
}
