// Runs' names for the views that show runs to a person (lists, the picker, the inbox, watch, completion). A
// Run carries no name: it is in the run's App Spec, read here a few at a time and once per run, so a list of
// a hundred runs costs a bounded number of requests in flight and a view that redraws costs none.
import { runNameOf } from '../contract/run-name.js';
import { Bounded } from '../lib/bounded.js';
import type { Api } from './index.js';

/** Spec reads in flight at once: enough to name a page of runs quickly, few enough to stay under a rate limit. */
const IN_FLIGHT = 6;

export class RunNames {
  readonly #api: Api;
  readonly #known = new Map<string, Promise<string | null>>();
  readonly #settled = new Map<string, string | null>();
  /** The reads in flight, names and whatever else a view reads per run beside them (the inbox's scorecards). */
  readonly reader = new Bounded(IN_FLIGHT);

  constructor(api: Api) {
    this.#api = api;
  }

  /** Each run's name (null when it has none yet, or its spec could not be read: a name never fails a view). */
  async of(runIds: readonly string[]): Promise<Map<string, string | null>> {
    const names = await Promise.all(runIds.map((id) => this.one(id)));
    return new Map(runIds.map((id, i) => [id, names[i]!]));
  }

  /** One run's name, read once: asked again, the same answer. */
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

  /** The spec changed (a `spec.updated` event, an edit): the next ask reads it again. */
  forget(runId: string): void {
    this.#known.delete(runId);
    this.#settled.delete(runId);
  }

  async #read(runId: string): Promise<string | null> {
    try {
      const name = runNameOf(await this.reader.run(() => this.#api.spec.retrieve(runId)));
      this.#settled.set(runId, name);
      return name;
    } catch {
      // No spec yet (404 before intake), or the read failed: the view shows the id alone.
      this.#settled.set(runId, null);
      return null;
    }
  }
}
