// What a user steers the sandbox with (CONTRACT.md, "Sandbox control"): faults injected into its own
// answers, and the journal of what it answered and delivered. The admin routes under /_sandbox/ (server.ts)
// use these; the CLI's `orc sandbox …` commands go through those routes, so a test in any language can too.
import type { Fault, FaultParams, JournalEntry } from '../contract/sandbox-control.js';
import { Failure } from './failure.js';
import { Router } from './router.js';

const STATUS_CODES: Record<number, Parameters<typeof failureOf>[0]> = {
  429: 'rate_limited',
  500: 'internal_error',
  503: 'unavailable',
};
function failureOf(code: 'rate_limited' | 'internal_error' | 'unavailable', message: string): Failure {
  return new Failure(
    code,
    message,
    undefined,
    code === 'rate_limited' || code === 'unavailable' ? { 'Retry-After': '1' } : {},
  );
}

/** Faults held at once: each is checked on every request. */
export const MAX_FAULTS = 100;
/** The longest latency a fault adds: an hour. */
export const MAX_LATENCY_MS = 3_600_000;

const FIELD_TYPES: Record<keyof FaultParams, 'string' | 'number' | 'boolean'> = {
  route: 'string',
  webhook: 'string',
  status: 'number',
  latency_ms: 'number',
  reset: 'boolean',
  cut_after: 'number',
  times: 'number',
  probability: 'number',
  seed: 'number',
};

/** A fault as sent, refused whole when any field is unknown, of the wrong type or out of range. */
function checkFault(input: unknown): FaultParams {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new Failure('invalid_value', 'a fault is a JSON object');
  for (const [k, v] of Object.entries(input)) {
    const type = FIELD_TYPES[k as keyof FaultParams];
    if (!type)
      throw new Failure('invalid_value', `${k} is not a field of a fault (${Object.keys(FIELD_TYPES).join(', ')})`, k);
    if (typeof v !== type) throw new Failure('invalid_value', `${k} must be a ${type}`, k);
    if (type === 'string' && (v as string).length > 500)
      throw new Failure('invalid_value', `${k} is longer than 500 characters`, k);
  }
  const spec = input as FaultParams;
  if (spec.latency_ms !== undefined && spec.latency_ms > MAX_LATENCY_MS)
    throw new Failure('invalid_value', `latency_ms is at most ${MAX_LATENCY_MS} (an hour)`, 'latency_ms');
  if (spec.seed !== undefined && !Number.isSafeInteger(spec.seed))
    throw new Failure('invalid_value', 'seed must be a whole number', 'seed');
  return spec;
}

type Held = Fault & { random: () => number; match?: (method: string, segments: string[]) => boolean };

export class Faults {
  private readonly faults: Held[] = [];
  private counter = 0;

  /** `exists`: whether the sandbox answers this method and path (pattern segments such as `{run}` included). */
  constructor(private readonly exists: (method: string, segments: string[]) => boolean = () => true) {}

  add(input: unknown): Fault {
    const spec = checkFault(input);
    if (this.faults.length >= MAX_FAULTS)
      throw new Failure(
        'invalid_value',
        `at most ${MAX_FAULTS} faults at once: remove some first (orc sandbox fault clear)`,
        'route',
      );
    if (!spec.route === !spec.webhook)
      throw new Failure('invalid_value', 'a fault takes a route (METHOD /path) or a webhook id, one of them', 'route');
    if (spec.status !== undefined && !STATUS_CODES[spec.status])
      throw new Failure('invalid_value', 'status must be 429, 500 or 503', 'status');
    if (spec.probability !== undefined && !(spec.probability >= 0 && spec.probability <= 1))
      throw new Failure('invalid_value', 'probability must be from 0 to 1', 'probability');
    for (const k of ['latency_ms', 'cut_after', 'times'] as const) {
      const v = spec[k];
      if (v !== undefined && !(Number.isInteger(v) && v >= (k === 'latency_ms' ? 0 : 1)))
        throw new Failure('invalid_value', `${k} must be a whole number${k === 'latency_ms' ? '' : ' above 0'}`, k);
    }
    if (spec.route && spec.status === undefined && !spec.latency_ms && !spec.reset && spec.cut_after === undefined)
      throw new Failure('invalid_value', 'a route fault needs a status, a latency, a reset or a cut_after', 'status');
    let match: ((method: string, segments: string[]) => boolean) | undefined;
    if (spec.route) {
      const m = /^([A-Za-z]+)\s+(\/\S*)$/.exec(spec.route.trim());
      if (!m) throw new Failure('invalid_value', "route must be 'METHOD /path', such as 'POST /v1/runs'", 'route');
      const method = m[1]!.toUpperCase();
      const pattern = m[2]!.split('/').slice(1);
      // Faults apply to the API (/v1) alone: the admin API, the console and signed files are never faulted,
      // and a fault on a route that is not there could never apply.
      if (pattern[0] !== 'v1')
        throw new Failure('invalid_value', `route: only the API's routes (/v1/…) can be faulted, not ${m[2]}`, 'route');
      if (!this.exists(method, pattern))
        throw new Failure(
          'invalid_value',
          `route: the sandbox has no ${method} ${m[2]} to fault (see CONTRACT.md for its routes)`,
          'route',
        );
      // Matched by the sandbox's own route matcher, so `{gate}:approve` is a parameter with its suffix.
      const one = new Router([{ method, pattern: m[2]!, handler: true }]);
      match = (meth, segments) => {
        const found = one.match(meth, segments);
        return found !== null && 'handler' in found && meth === method;
      };
    }
    const fault: Fault = { ...spec, id: `flt_${++this.counter}`, applied: 0 };
    this.faults.push({ ...fault, random: mulberry32(spec.seed ?? 0), ...(match ? { match } : {}) });
    return fault;
  }

  list(): Fault[] {
    return this.faults.map(({ random: _r, match: _m, ...f }) => f);
  }

  remove(id: string): boolean {
    const i = this.faults.findIndex((f) => f.id === id);
    if (i < 0) return false;
    this.faults.splice(i, 1);
    return true;
  }

  clear(): void {
    this.faults.length = 0;
  }

  /** The fault this request meets, if any (counted as applied). */
  forRequest(method: string, path: string): Fault | null {
    if (this.faults.length === 0) return null;
    const segments = path.split('/').slice(1);
    return this.take((f) => Boolean(f.match?.(method, segments)));
  }

  /** The fault a delivery to this webhook meets, if any. */
  forDelivery(webhookId: string): Fault | null {
    if (this.faults.length === 0) return null;
    return this.take((f) => f.webhook === webhookId);
  }

  /** The error a fault answers with. */
  static failure(f: Fault): Failure {
    return failureOf(STATUS_CODES[f.status!]!, `injected by fault ${f.id} (orc sandbox fault list)`);
  }

  private take(pred: (f: Held) => boolean): Fault | null {
    for (const f of this.faults) {
      if (!pred(f)) continue;
      if (f.times !== undefined && f.applied >= f.times) continue;
      if (f.probability !== undefined && f.random() >= f.probability) continue;
      f.applied++;
      const { random: _r, match: _m, ...plain } = f;
      return plain;
    }
    return null;
  }
}

/** A small seeded generator: the same seed, the same sequence. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Without<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** What the server adds: an entry with its time as the sandbox clock's milliseconds. */
export type JournalInput = Without<JournalEntry, 'seq' | 'at'> & { at: number };

/**
 * The last `size` requests and delivery attempts, in order; followers are told of each new one. A ring: on
 * the request path an entry is one slot written, and its time is made ISO 8601 only when it is read.
 */
export class Journal {
  private readonly ring: JournalInput[] = [];
  private seq = 0;
  private readonly followers = new Set<(e: JournalEntry) => void>();

  constructor(readonly size = 1000) {}

  add(entry: JournalInput): void {
    if (this.size === 0) return;
    const seq = ++this.seq;
    this.ring[(seq - 1) % this.size] = entry;
    if (this.followers.size === 0) return;
    const e = shown(seq, entry);
    for (const f of this.followers) f(e);
  }

  /** Entries after `seq`, oldest first, at most `limit`. */
  since(seq: number, limit = this.size): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let s = Math.max(seq + 1, this.seq - this.size + 1, 1); s <= this.seq && out.length < limit; s++)
      out.push(shown(s, this.ring[(s - 1) % this.size]!));
    return out;
  }

  follow(fn: (e: JournalEntry) => void): () => void {
    this.followers.add(fn);
    return () => this.followers.delete(fn);
  }
}

function shown(seq: number, { at, ...rest }: JournalInput): JournalEntry {
  return { seq, at: new Date(at).toISOString(), ...rest } as JournalEntry;
}
