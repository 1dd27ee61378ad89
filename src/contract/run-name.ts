// What a person calls a run: the app's name from its App Spec, else the start of its tagline or description
// (the pitch, as the spec tells it back), and the reader that names runs a few at a time. One rule for every
// view: the CLI's lists, watch, completion, the console.
import { Bounded } from '../lib/bounded.js';
import { TERMINAL_STATUSES } from './events.js';

/** At most this many characters: a name sits beside an id in a row. */
export const RUN_NAME_MAX = 32;

/** The name to show beside a run's id; null when its spec says nothing a person would know it by. */
export function runNameOf(spec: unknown): string | null {
  if (spec === null || typeof spec !== 'object') return null;
  const s = spec as Record<string, unknown>;
  for (const field of ['name', 'tagline', 'description']) {
    const value = s[field];
    if (typeof value !== 'string') continue;
    const text = value.replace(/\s+/g, ' ').trim();
    if (text) return shorten(text);
  }
  return null;
}

function shorten(text: string): string {
  const chars = [...text];
  if (chars.length <= RUN_NAME_MAX) return text;
  const cut = chars.slice(0, RUN_NAME_MAX - 1).join('');
  // At a word's end where there is one near, so "A tide table for sail…" reads as words.
  const space = cut.lastIndexOf(' ');
  return `${(space >= RUN_NAME_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Spec reads in flight at once: enough to name a page of runs quickly, few enough to stay under a rate limit. */
const IN_FLIGHT = 6;

/** How a view reads a run's App Spec: the CLI's api, the console's fetch. */
export type SpecReader = (runId: string) => Promise<unknown>;

/** Names kept from one command to the next (the CLI's cache folder): only ended runs', whose App Spec is locked
 * (CONTRACT.md, Spec: 409 spec_locked), so a name kept is never stale. */
export interface NameMemory {
  get(runId: string): string | null | undefined;
  set(runId: string, name: string | null): void;
  /** The names set since the last save, written. */
  save(): void;
}

/** Runs' names read a few at a time and once per run, so a list of a hundred runs costs a bounded number of
 * requests in flight and a view that redraws costs none. Here (not in api/) so the console shares it. */
export class RunNameReader {
  readonly #readSpec: SpecReader;
  readonly #known = new Map<string, Promise<string | null>>();
  readonly #settled = new Map<string, string | null>();
  /** Runs whose spec could not be read (a name never fails a view, but a failure is not remembered). */
  readonly #failed = new Set<string>();
  /** How many times each run's name was forgotten: a read begun before the last time settles nothing. */
  readonly #forgotten = new Map<string, number>();
  readonly #memory: NameMemory | undefined;
  /** The reads in flight, names and whatever else a view reads per run beside them (the inbox's scorecards). */
  readonly reader = new Bounded(IN_FLIGHT);

  constructor(readSpec: SpecReader, memory?: NameMemory) {
    this.#readSpec = readSpec;
    this.#memory = memory;
  }

  /** Each run's name, as `of`; an ended run's from memory when it was read before (and kept once read). */
  async ofRuns(runs: ReadonlyArray<{ id: string; status: string }>): Promise<Map<string, string | null>> {
    const memory = this.#memory;
    const ended = runs.filter((r) => TERMINAL_STATUSES.has(r.status)).map((r) => r.id);
    for (const id of ended) {
      const kept = memory?.get(id);
      if (kept !== undefined && !this.#known.has(id)) {
        this.#known.set(id, Promise.resolve(kept));
        this.#settled.set(id, kept);
      }
    }
    const names = await this.of(runs.map((r) => r.id));
    if (memory) {
      for (const id of ended) if (!this.#failed.has(id) && memory.get(id) === undefined) memory.set(id, names.get(id)!);
      memory.save();
    }
    return names;
  }

  /** Each run's name (null when it has none yet, or its spec could not be read: a name never fails a view). */
  async of(runIds: readonly string[]): Promise<Map<string, string | null>> {
    const names = await Promise.all(runIds.map((id) => this.one(id)));
    return new Map(runIds.map((id, i) => [id, names[i]!]));
  }

  /** One run's name, read once: asked again, the same answer (a read that failed is tried again when asked). */
  one(runId: string): Promise<string | null> {
    let name = this.#known.get(runId);
    if (!name) {
      name = this.#read(runId);
      this.#known.set(runId, name);
    }
    return name;
  }

  /** The name as known now, without asking: undefined when not read yet. */
  peek(runId: string): string | null | undefined {
    return this.#settled.get(runId);
  }

  /** The spec changed (a decision that carried a change, an edit): the next ask reads it again, and a read in
   * flight now settles nothing (it may hold the old name). */
  forget(runId: string): void {
    this.#forgotten.set(runId, (this.#forgotten.get(runId) ?? 0) + 1);
    this.#failed.delete(runId);
    this.#known.delete(runId);
    this.#settled.delete(runId);
  }

  async #read(runId: string): Promise<string | null> {
    // Only a read begun since the last forget() may settle the name.
    const generation = this.#forgotten.get(runId) ?? 0;
    const current = () => (this.#forgotten.get(runId) ?? 0) === generation;
    try {
      const name = runNameOf(await this.reader.run(() => this.#readSpec(runId)));
      if (current()) this.#settled.set(runId, name);
      return name;
    } catch {
      // No spec yet (404 before intake), or the read failed: the view shows the id alone for now, and the next
      // ask (a run joining a view again, a redraw that asks) reads it again; a failure is never remembered.
      if (current()) {
        this.#failed.add(runId);
        this.#settled.set(runId, null);
        this.#known.delete(runId);
      }
      return null;
    }
  }
}
