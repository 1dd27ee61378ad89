// A sandbox for other people's tests (`import { startSandbox } from 'orc-cli/testing'`): the one `orc sandbox
// start` runs, started in this process, in memory, on a free port, with the CLI's knobs and its admin API
// (SandboxAdmin, through the handle's client) as functions. docs/sdk/testing.md shows it under each runner.
import { systemClock } from '../lib/clock.js';
import { VERSION } from '../lib/version.js';
import { KNOBS } from '../contract/sandbox-knobs.js';
import type { EventKind } from '../contract/events.js';
import { isTestKey, newTestKey } from '../config/sandbox-state.js';
import { ValidationError } from '../api/errors.js';
import { didYouMean } from '../lib/suggest.js';
import {
  listenProblem,
  readSnapshot,
  readSnapshotFile,
  startClocks,
  startSandbox as startServer,
} from '../sandbox/index.js';
import type { RunningSandbox, SandboxOptions } from '../sandbox/index.js';
import type {
  AdvanceParams,
  AdvanceResult,
  ClockView,
  Fault,
  FaultParams,
  FaultRemoved,
  FaultsCleared,
  ResetDone,
  TriggerParams,
  TriggerResult,
} from '../contract/sandbox-control.js';
import { Orc } from './client.js';

/** What `startSandbox` takes; every field may be left out. */
export interface SandboxStartOptions {
  /** `manual`: the sandbox's time stands still until `advance` moves it; `real` (default): it flows. */
  clock?: 'manual' | 'real';
  /** How long one pipeline stage takes, in ms (default 4000, as `orc sandbox start`). */
  stageMs?: number;
  /** Varies the generated specs and scores; the same seed gives the same ones (default 0). */
  seed?: number;
  /** Start from a snapshot: a file `orc sandbox export` wrote, or what a handle's `export()` resolved to. */
  import?: string | Record<string, unknown>;
  /** The test key it accepts (`sk_test_…`); default a new random one for each sandbox. */
  apiKey?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The first webhook retry's delay in ms, doubled each attempt (default 1000). */
  retryBaseMs?: number;
  /** The generated ipa's size in MiB (default 1, the least: made and hashed quickly; the CLI's is 20). */
  ipaMib?: number;
  /** Requests per second per key (default 0: no limit, so a quick suite is never answered 429; the CLI's is 100). */
  rateLimit?: number;
  /** Told each line the sandbox says (a client that dropped its request, …); default nowhere. */
  log?: (line: string) => void;
}

/** Options for `trigger`: the run it happens on (default a new fixture run), and the event's particulars. */
export type TriggerOptions = Omit<TriggerParams, 'kind'>;

/** A running sandbox: its address and key, a client aimed at it, and its admin API as functions. */
export interface TestSandbox extends AsyncDisposable {
  readonly url: string;
  readonly apiKey: string;
  /** An `Orc` aimed at this sandbox (stopped with it). */
  readonly client: Orc;
  /** Moves the whole (manual) clock by a duration (`'90s'`, `90_000`), or one run `{ run, by?, to? }`
   * (`to`: a stage, `'gate:brand'`, `'end'`). */
  advance(by: string | number | (AdvanceParams & { run: string })): Promise<AdvanceResult>;
  /** Makes an event happen for real (`'run.failed'`, …), on `opts.run` or on a new fixture run. */
  trigger(kind: EventKind, opts?: TriggerOptions): Promise<TriggerResult>;
  readonly faults: {
    /** `{ route: 'GET /v1/runs/{run}', status: 503, times: 1 }`, a latency, a reset, a cut stream… */
    add(params: FaultParams): Promise<Fault>;
    list(): Promise<Fault[]>;
    remove(id: string): Promise<FaultRemoved>;
    clear(): Promise<FaultsCleared>;
  };
  /** Where the sandbox's time is, and the runs it still moves. */
  clock(): Promise<ClockView>;
  /** Empties runs, webhooks, deliveries and faults; the key and the knobs stay. */
  reset(): Promise<ResetDone>;
  /** The snapshot (as `orc sandbox export`): what the option `import` takes back. */
  export(): Promise<Record<string, unknown>>;
  /** Closes the client's connections, the server, its sockets, store and timers; twice is fine. */
  stop(): Promise<void>;
}

/** Starts a sandbox in this process; rejects, naming the option, when it cannot (a taken port, a bad snapshot). */
export async function startSandbox(options: SandboxStartOptions = {}): Promise<TestSandbox> {
  const given = checkOptions(options);
  const importSnapshot = options.import === undefined ? undefined : snapshotOf(options.import);
  let running: RunningSandbox;
  try {
    running = await startServer({
      ...given,
      ...startClocks(options.clock ?? 'real', systemClock, importSnapshot),
      ...(importSnapshot ? { importSnapshot } : {}),
      dataPath: ':memory:',
      version: VERSION,
      ...(options.log ? { log: options.log } : {}),
    });
  } catch (err) {
    throw startError(err, given);
  }
  return handle(running, given.apiKey);
}

type Given = Pick<
  SandboxOptions,
  'host' | 'port' | 'apiKey' | 'stageMs' | 'seed' | 'retryBaseMs' | 'ipaMib' | 'rateLimit'
>;

const OPTION_NAMES = [
  'clock',
  'stageMs',
  'seed',
  'import',
  'apiKey',
  'port',
  'host',
  'retryBaseMs',
  'ipaMib',
  'rateLimit',
  'log',
] as const satisfies ReadonlyArray<keyof SandboxStartOptions>;

const NUMBER_KNOBS = ['port', 'stageMs', 'seed', 'retryBaseMs', 'ipaMib', 'rateLimit'] as const;

/** The options checked (each named when it is wrong), with the defaults of a test's sandbox. */
function checkOptions(o: SandboxStartOptions): Given {
  if (o === null || typeof o !== 'object') throw new ValidationError('the options must be an object');
  // From JavaScript a misspelled option would be left out without a word (a real clock for `clok: 'manual'`).
  for (const key of Object.keys(o))
    if (!(OPTION_NAMES as readonly string[]).includes(key))
      throw new ValidationError(`unknown option ${key}${didYouMean(key, OPTION_NAMES)}`, key);
  if (o.clock !== undefined && o.clock !== 'manual' && o.clock !== 'real')
    throw new ValidationError(`clock must be 'manual' or 'real', not ${JSON.stringify(o.clock)}`, 'clock');
  for (const name of NUMBER_KNOBS) {
    const v = o[name];
    const knob: { min: number; max?: number } = KNOBS[name];
    const { min } = knob;
    const max = knob.max ?? Number.MAX_SAFE_INTEGER;
    if (v !== undefined && !(Number.isInteger(v) && v >= min && v <= max))
      throw new ValidationError(`${name} must be a whole number from ${min} to ${max}, not ${String(v)}`, name);
  }
  if (o.apiKey !== undefined && !(typeof o.apiKey === 'string' && isTestKey(o.apiKey)))
    throw new ValidationError('apiKey must be a test key: sk_test_<letters, digits or _>', 'apiKey');
  if (o.host !== undefined && (typeof o.host !== 'string' || o.host.trim() === ''))
    throw new ValidationError('host must be an address to listen on (default 127.0.0.1)', 'host');
  if (o.log !== undefined && typeof o.log !== 'function')
    throw new ValidationError('log must be a function taking a line', 'log');
  return {
    host: o.host?.trim() ?? '127.0.0.1',
    port: o.port ?? 0,
    apiKey: o.apiKey ?? newTestKey(),
    stageMs: o.stageMs ?? KNOBS.stageMs.default,
    seed: o.seed ?? KNOBS.seed.default,
    retryBaseMs: o.retryBaseMs ?? KNOBS.retryBaseMs.default,
    ipaMib: o.ipaMib ?? 1,
    rateLimit: o.rateLimit ?? 0,
  };
}

/** The snapshot to import, read and checked as `orc sandbox start --import` does. */
function snapshotOf(source: string | Record<string, unknown>): ReturnType<typeof readSnapshot> {
  const where = typeof source === 'string' ? `import ${source}` : 'import';
  try {
    if (typeof source === 'string') return readSnapshotFile(source);
    if (source === null || typeof source !== 'object') throw new Error('not a sandbox snapshot (a path or an object)');
    return readSnapshot(JSON.stringify(source));
  } catch (err) {
    throw new ValidationError(`${where}: ${(err as Error).message}`, 'import');
  }
}

/** Why the server did not start, naming the option at fault when one is. */
function startError(err: unknown, given: Given): unknown {
  const listen = listenProblem(err, given);
  if (listen)
    return new ValidationError(
      `${listen.option}: ${listen.message}${listen.option === 'port' && given.port !== 0 ? ' (port 0 picks a free one)' : ''}`,
      listen.option,
    );
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ERR_SANDBOX_SNAPSHOT' || code?.startsWith('ERR_SQLITE'))
    return new ValidationError(`import: ${(err as Error).message}`, 'import');
  return err;
}

/** The handle: the client aimed at the sandbox, and the admin API through it (SandboxAdmin). */
function handle(running: RunningSandbox, apiKey: string): TestSandbox {
  // env {}: no ORC_* variable nor proxy of the process's steers a test's client elsewhere.
  const client = new Orc({ apiKey, baseUrl: running.url, env: {} });
  const admin = client.sandbox;
  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      await client.close();
      await running.close();
      // Node lets go of a closed server's and sockets' handles at the end of the loop's turn (its close
      // phase): the second turn's check phase comes after it, so when stop resolves none is left to count.
      for (let turn = 0; turn < 2; turn++) await new Promise((done) => setImmediate(done));
    })());
  return {
    url: running.url,
    apiKey,
    client,
    advance: (by) => admin.advance(typeof by === 'object' && by !== null ? by : { by }),
    trigger: (kind, opts = {}) => admin.trigger({ ...opts, kind }),
    faults: {
      add: (params) => admin.addFault(params),
      list: () => admin.faults(),
      remove: (id) => admin.removeFault(id),
      clear: () => admin.clearFaults(),
    },
    clock: () => admin.clock(),
    reset: () => admin.reset(),
    export: () => admin.exportSnapshot(),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
