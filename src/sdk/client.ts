// The library's client (`import { Orc } from 'orc-cli'`): the service's operations as methods, on the CLI's own
// parts: the one request path (src/api/http.ts: retries, one Idempotency-Key per create, the key rules), its
// resources, the page walk, the watch engine's resuming event stream (src/watch/engine.ts), the artifact pull
// with its sha256 check (src/artifacts/pull.ts), and the target as the CLI finds it (src/config/target.ts).
// What is added here is the public face: input checked before anything is sent, and iterators. Each method
// that answers a promise is async, so a refusal (a bad id, a misspelled gate) rejects it, never throws at the call.
import { Api } from '../api/index.js';
import { HttpClient, loadSchemas, type TargetSettings } from '../api/http.js';
import { ValidationError } from '../api/errors.js';
import {
  baseUrlProblem,
  destinationProblem,
  keyMode,
  normalizeBaseUrl,
  redactKey,
  webhookUrlProblem,
} from '../contract/keys.js';
import { ConfigError } from '../exit/errors.js';
import { ARTIFACT_KINDS, GATE_NAMES, RUN_STATUSES, type ArtifactKind, type GateName } from '../contract/events.js';
import type {
  AppSpec,
  AppSpecInput,
  Artifact,
  ArtifactEntry,
  Delivery,
  Event,
  Gate,
  GateDecision,
  IdeaInput,
  Page,
  Run,
  Scorecard,
  Webhook,
  WebhookCreateParams,
  WebhookWithSecret,
} from '../contract/schemas.js';
import type { RunStatus } from '../contract/events.js';
import { Problem } from '../lib/problem.js';
import { VERSION } from '../lib/version.js';
import type { PullOutcome } from '../artifacts/pull.js';
import type { SandboxAdmin } from '../api/resources/sandbox.js';

export interface OrcOptions {
  /** The key; default ORC_API_KEY, else the profile's (as the CLI finds it). */
  apiKey?: string;
  /** The service's address; default ORC_BASE_URL, else the profile's, else the local sandbox's. */
  baseUrl?: string;
  /** A profile of the CLI's (`orc profile add`); default ORC_PROFILE, else the active one. */
  profile?: string;
  /** Use the profile's live key (as `orc --live`). */
  live?: boolean;
  /** Where ORC_* variables and proxy settings are read; default process.env. */
  env?: Record<string, string | undefined>;
  /** Retries of a failed request after the first attempt (default 4). */
  maxRetries?: number;
  /** Milliseconds one call may take, retries included (default 120 000; 0: no limit). */
  timeout?: number;
  /** A PEM file of CA certificates to trust besides the system's (a sandbox started with --tls prints one). */
  caFile?: string;
}

/** What `runs.create` takes: an idea, or an existing app to ship (a repository URL or an App Spec). */
export type RunCreate = { mode: 'idea'; idea: IdeaInput } | { mode: 'ship'; source: string | AppSpecInput };

/** A JSON Merge Patch of the App Spec: a field set, or removed with null. */
export type AppSpecPatch = { [K in keyof AppSpecInput]?: AppSpecInput[K] | null };

export interface WaitOptions {
  /** `gate`: until the run waits at a gate (or has ended); `end`: until it has ended. */
  until: 'gate' | 'end';
  signal?: AbortSignal;
  /** Give up after this many milliseconds (a WaitTimeoutError). */
  timeout?: number;
}

/** The client: `new Orc()` finds its target as the CLI does; `new Orc({ apiKey, baseUrl })` goes there. */
export class Orc {
  readonly runs: Runs;
  readonly gates: Gates;
  readonly spec: Spec;
  readonly artifacts: Artifacts;
  readonly webhooks: Webhooks;
  /** The sandbox's admin API (clock, triggers, faults, reset, export): only a sandbox answers it. */
  readonly sandbox: SandboxAdmin;
  readonly #api: Api;

  constructor(options: OrcOptions = {}) {
    options = checkOptions(options);
    const env = options.env ?? process.env;
    const common = {
      userAgent: `orc-cli/${VERSION} node/${process.versions.node}`,
      env,
      deadlineMs: options.timeout ?? 120_000,
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    };
    const http =
      options.apiKey && options.baseUrl
        ? new HttpClient({ ...common, ...settingsOf(options) })
        : new HttpClient({ ...common, target: () => findTarget(options, env) });
    // Each call has its own deadline, as a library's caller expects (not one for the life of the client).
    http.deadlinePerRequest();
    this.#api = new Api(http);
    this.runs = new Runs(this.#api);
    this.gates = new Gates(this.#api);
    this.spec = new Spec(this.#api);
    this.artifacts = new Artifacts(this.#api);
    this.webhooks = new Webhooks(this.#api);
    this.sandbox = this.#api.sandbox;
  }

  /** Where the client sends, once found (env, profiles): the address and the key redacted (`sk_test_…abcd`). */
  async target(): Promise<{ baseUrl: string; key: string }> {
    const { baseUrl, apiKey } = await this.#api.http.ready();
    return { baseUrl, key: redactKey(apiKey) };
  }

  /** Closes the connections and ends what is in flight (ClientClosedError); nothing is sent after. A process
   * exits without it too: idle connections do not hold it open. */
  close(): Promise<void> {
    return this.#api.http.close();
  }

  /** What JSON.stringify and util.inspect show: the address, the key redacted; never the key or the env. */
  toJSON(): { baseUrl: string | null; key: string | null } {
    return this.#api.http.toJSON();
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    const { baseUrl, key } = this.toJSON();
    return baseUrl ? `Orc { ${baseUrl}, key ${key} }` : 'Orc { target not found yet }';
  }
}

/** The library's names for what the CLI's messages call --profile, --live and --base-url. */
const OPTION_NAMES = { profile: 'the option profile', live: 'live: true', baseUrl: 'baseUrl' };

/** The options as given from JavaScript too: each of the right type, or a ValidationError naming it. */
function checkOptions(o: unknown): OrcOptions {
  if (o === undefined || o === null) return {};
  if (typeof o !== 'object' || Array.isArray(o))
    throw new ValidationError(`new Orc() takes an options object ({ apiKey, baseUrl, … }), not ${kindOf(o)}`);
  const given = o as Record<string, unknown>;
  for (const k of ['apiKey', 'baseUrl', 'profile', 'caFile'] as const)
    if (given[k] !== undefined && (typeof given[k] !== 'string' || given[k] === ''))
      throw new ValidationError(`${k} must be a non-empty string, not ${kindOf(given[k])}`, k);
  if (given.live !== undefined && typeof given.live !== 'boolean')
    throw new ValidationError(`live must be true or false, not ${kindOf(given.live)}`, 'live');
  if (given.env !== undefined && (given.env === null || typeof given.env !== 'object'))
    throw new ValidationError(`env must be an object of variables, not ${kindOf(given.env)}`, 'env');
  wholeNumber(given.maxRetries, 'maxRetries', 0, 100);
  wholeNumber(given.timeout, 'timeout', 0, 2_147_483_647);
  return given as OrcOptions;
}

/** `value` a whole number from `min` to `max` when given, or a ValidationError naming `field`. */
function wholeNumber(value: unknown, field: string, min: number, max: number): void {
  if (value === undefined) return;
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max))
    throw new ValidationError(`${field} must be a whole number from ${min} to ${max}, not ${kindOf(value)}`, field);
}

const kindOf = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'an array'
      : typeof v === 'string'
        ? JSON.stringify(v)
        : typeof v === 'object'
          ? 'an object'
          : `${typeof v} ${String(v)}`;

/** The signal of an option, if it is one. */
function signalOf(value: unknown, field: string): AbortSignal | undefined {
  if (value === undefined || value instanceof AbortSignal) return value;
  throw new ValidationError(`${field} must be an AbortSignal, not ${kindOf(value)}`, field);
}

/** A target given whole, held to the CLI's rules (contract/keys.ts): an http(s) address (https, or http to this
 * machine), a test key to this machine only, a live key never there. */
function settingsOf(o: OrcOptions): TargetSettings {
  const { baseUrl, apiKey } = o as Required<Pick<OrcOptions, 'baseUrl' | 'apiKey'>>;
  const wrong = baseUrlProblem(baseUrl);
  if (wrong) throw new ConfigError(`baseUrl: ${wrong}`);
  const mode = keyMode(apiKey);
  const problem = mode ? destinationProblem(mode, baseUrl, OPTION_NAMES) : null;
  if (problem) throw new ConfigError(problem.message, problem.hint);
  return { baseUrl: normalizeBaseUrl(baseUrl), apiKey, ...(o.caFile ? { caFile: o.caFile } : {}) };
}

/** The target as the CLI finds it (flag > env > profile > the local sandbox), with the same key rules. */
async function findTarget(o: OrcOptions, env: Record<string, string | undefined>): Promise<TargetSettings> {
  const [{ resolveTarget }, { configDir }] = await Promise.all([
    import('../config/target.js'),
    import('../config/paths.js'),
  ]);
  const withKey = o.apiKey ? { ...env, ORC_API_KEY: o.apiKey } : env;
  const flags = { profile: o.profile, live: o.live, baseUrl: o.baseUrl, names: OPTION_NAMES };
  const t = await resolveTarget(flags, withKey, configDir(withKey));
  const caFile = o.caFile ?? t.caFile;
  return { baseUrl: t.baseUrl, apiKey: t.key, ...(caFile ? { caFile } : {}) };
}

/** A value checked against one of a fixed set, before anything is sent. */
function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new ValidationError(`${field} must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`, field);
}

/** A body checked against the contract's input schema (the one the sandbox parses with), before it is sent. */
async function checked(schema: 'RunCreateParams' | 'WebhookCreateParams', value: unknown): Promise<void> {
  const [s, { describeIssue }, { useEnglishMessages }] = await Promise.all([
    loadSchemas(),
    import('../contract/issues.js'),
    import('../lib/zod-messages.js'),
  ]);
  useEnglishMessages();
  const parsed = s[schema].safeParse(value);
  if (parsed.success) return;
  const { field, message } = describeIssue(parsed.error.issues, value);
  throw new ValidationError(`${field || 'body'}: ${message}; nothing was sent`, field || undefined);
}

export class Runs {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /** Starts a run. Retries reuse one Idempotency-Key (yours, or one made for this call). */
  async create(params: RunCreate, options: { idempotencyKey?: string } = {}): Promise<Run> {
    const key = options?.idempotencyKey;
    if (key !== undefined && !(typeof key === 'string' && key.length >= 1 && key.length <= 255))
      throw new ValidationError(
        `idempotencyKey must be a string of 1 to 255 characters, not ${kindOf(key)}`,
        'idempotencyKey',
      );
    await checked('RunCreateParams', params);
    return this.#api.runs.create(params, key === undefined ? {} : { idempotencyKey: key });
  }

  async retrieve(runId: string): Promise<Run> {
    return this.#api.runs.retrieve(runId);
  }

  /** Every run, page after page, newest first: `for await (const run of orc.runs.list({ status }))`. */
  async *list(query: { status?: RunStatus; limit?: number } = {}): AsyncGenerator<Run> {
    yield* this.#api.runs.listAll(checkedQuery(query));
  }

  /** One page of runs, from `cursor` (a page's `next_cursor`). */
  async page(query: { status?: RunStatus; limit?: number; cursor?: string } = {}): Promise<Page<Run>> {
    return this.#api.runs.list(checkedQuery(query));
  }

  async cancel(runId: string): Promise<Run> {
    return this.#api.runs.cancel(runId);
  }

  async scorecard(runId: string): Promise<Scorecard> {
    return this.#api.runs.scorecard(runId);
  }

  /**
   * The run's events as they happen, from its first, log lines included: a dropped stream is resumed with
   * Last-Event-ID, so none is missed or had twice. Ends after the run's last event (or when `signal` aborts).
   */
  async *events(runId: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<Event> {
    const signal = signalOf(options?.signal, 'signal');
    const { watchRun } = await import('../watch/engine.js');
    let told: Event | null = null;
    for await (const item of watchRun(this.#api, runId, signal ? { signal } : {})) {
      if (signal?.aborted) return; // the rest of a batch read before the abort is not handed on
      if (item.kind === 'event' || item.kind === 'log') yield (told = item.event);
      // A stream the service had already ended says how the run ended, as an event of its own.
      else if (item.kind === 'ended' && told !== item.event) yield item.event;
    }
  }

  /** Resolves with the run once it waits at a gate (`until: 'gate'`) or once it has ended (either way). */
  async waitFor(runId: string, options: WaitOptions): Promise<Run> {
    const until = oneOf('until', options?.until, ['gate', 'end'] as const);
    wholeNumber(options.timeout, 'timeout', 1, 2_147_483_647);
    const limit = options.timeout ? AbortSignal.timeout(options.timeout) : undefined;
    const signals = [signalOf(options.signal, 'signal'), limit].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length ? AbortSignal.any(signals) : undefined;
    const { waitForRun } = await import('../watch/wait.js');
    try {
      // Null: the signal ended it, or the stream closed before the run got there (then it is followed again).
      for (;;) {
        const run = await waitForRun(this.#api, runId, { until, ...(signal ? { signal } : {}) });
        if (run) return run;
        if (signal?.aborted) break;
      }
    } catch (err) {
      if (!signal?.aborted) throw err;
    }
    if (options.signal?.aborted) throw options.signal.reason;
    throw new WaitTimeoutError(
      `${runId} did not reach ${until === 'gate' ? 'a gate' : 'its end'} within ${options.timeout} ms`,
    );
  }
}

/** A list's query as the service takes it (CONTRACT.md, Pages: `limit` 1–100), checked before it is sent. */
function checkedQuery<Q extends { status?: string; limit?: number }>(query: Q): Q {
  if (query?.status !== undefined) oneOf('status', query.status, RUN_STATUSES);
  const limit = query?.limit;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100))
    throw new ValidationError(`limit must be a whole number from 1 to 100, not ${JSON.stringify(limit)}`, 'limit');
  return query ?? ({} as Q);
}

/** `runs.waitFor` gave up after its `timeout`. */
export class WaitTimeoutError extends Problem {}

export class Gates {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /** The run's three gates, in order. */
  async list(runId: string): Promise<Gate[]> {
    return this.#api.gates.list(runId);
  }

  async approve(runId: string, gate: GateName, options: { notes?: string } = {}): Promise<GateDecision> {
    const notes = options?.notes;
    if (notes !== undefined && typeof notes !== 'string')
      throw new ValidationError(`notes must be a string, not ${kindOf(notes)}`, 'notes');
    return this.#api.gates.approve(runId, oneOf('gate', gate, GATE_NAMES), notes?.trim() || undefined);
  }

  /** Rejecting says why: `notes` is required. */
  async reject(runId: string, gate: GateName, options: { notes: string }): Promise<GateDecision> {
    const notes = options?.notes;
    if (typeof notes !== 'string' || notes.trim() === '')
      throw new ValidationError('notes: required to reject (say why); nothing was sent', 'notes');
    return this.#api.gates.reject(runId, oneOf('gate', gate, GATE_NAMES), notes.trim());
  }
}

export class Spec {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  async retrieve(runId: string): Promise<AppSpec> {
    return this.#api.spec.retrieve(runId);
  }

  /** Changes the App Spec (a JSON Merge Patch: null removes a field) while the run waits at a gate. */
  async update(runId: string, patch: AppSpecPatch): Promise<AppSpec> {
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch))
      throw new ValidationError('the patch must be an object (a JSON Merge Patch of the App Spec)', 'patch');
    return this.#api.spec.update(runId, patch as Record<string, unknown>);
  }
}

export class Artifacts {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /** The run's artifact kinds, each ready or pending, with size and sha256. */
  async list(runId: string): Promise<ArtifactEntry[]> {
    return this.#api.artifacts.manifest(runId);
  }

  /** One kind: its JSON content inline, or its files behind signed URLs. */
  async retrieve(runId: string, kind: ArtifactKind): Promise<Artifact> {
    return this.#api.artifacts.retrieve(runId, oneOf('kind', kind, ARTIFACT_KINDS));
  }

  /**
   * The run's artifacts into `dir` (every ready kind, or those named), each file checked against its sha256
   * (a mismatch is not kept: a DigestMismatchError among `failed`); a file there already is resumed or kept.
   */
  async download(
    runId: string,
    options: { dir: string; kinds?: ArtifactKind[]; concurrency?: number; signal?: AbortSignal },
  ): Promise<PullOutcome> {
    if (typeof options?.dir !== 'string' || options.dir === '')
      throw new ValidationError('dir: required (the folder to write into)', 'dir');
    for (const k of options.kinds ?? []) oneOf('kinds', k, ARTIFACT_KINDS);
    const { pullArtifacts } = await import('../artifacts/pull.js');
    return pullArtifacts(this.#api, runId, {
      kinds: options.kinds ?? [],
      dir: options.dir,
      concurrency: options.concurrency ?? 4,
      signal: options.signal ?? new AbortController().signal,
      clock: this.#api.http.clock,
    });
  }
}

export class Webhooks {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /** Registers an endpoint; the answer carries its signing secret, shown only now. */
  async create(params: WebhookCreateParams): Promise<WebhookWithSecret> {
    const problem = typeof params?.url === 'string' ? webhookUrlProblem(params.url) : null;
    if (problem) throw new ValidationError(`url: ${problem}; nothing was sent`, 'url');
    await checked('WebhookCreateParams', params);
    return this.#api.webhooks.create(params);
  }

  async retrieve(webhookId: string): Promise<Webhook> {
    return this.#api.webhooks.retrieve(webhookId);
  }

  /** Every webhook, page after page. */
  async *list(): AsyncGenerator<Webhook> {
    yield* this.#api.webhooks.listAll();
  }

  async remove(webhookId: string): Promise<{ id: string; deleted: true }> {
    return this.#api.webhooks.remove(webhookId);
  }

  /** The webhook's deliveries, newest first, page after page. */
  async *deliveries(webhookId: string): AsyncGenerator<Delivery> {
    yield* this.#api.webhooks.deliveries(webhookId);
  }

  async redeliver(webhookId: string, deliveryId: string): Promise<Delivery> {
    return this.#api.webhooks.redeliver(webhookId, deliveryId);
  }
}
