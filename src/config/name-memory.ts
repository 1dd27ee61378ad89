// Ended runs' names kept in the cache folder, per target: `run list` and the pickers read a run's App Spec for
// its name once, not at every command (an ended run's spec is locked, so its name never changes).
import type { Api } from '../api/index.js';
import { RunNames } from '../api/run-names.js';
import type { NameMemory } from '../contract/run-name.js';
import { readCache, writeCache } from './cache.js';

const FILE = 'run-names.json';
/** The newest this many are kept: a few pages of runs, some tens of KiB. */
const MAX_NAMES = 2000;

export function nameMemory(dir: string, baseUrl: string): NameMemory {
  let names: Map<string, string | null> | undefined;
  let changed = false;
  const load = () => {
    if (names) return names;
    const kept = readCache<unknown>(dir, FILE, baseUrl);
    const entries = Array.isArray(kept) ? kept : [];
    names = new Map(
      entries.filter(
        (e): e is [string, string | null] =>
          Array.isArray(e) && typeof e[0] === 'string' && (typeof e[1] === 'string' || e[1] === null),
      ),
    );
    return names;
  };
  return {
    get: (runId) => load().get(runId),
    set(runId, name) {
      const all = load();
      all.delete(runId);
      all.set(runId, name);
      changed = true;
    },
    save() {
      if (!changed || !names) return;
      const entries = [...names].slice(-MAX_NAMES);
      writeCache(dir, FILE, baseUrl, entries);
      changed = false;
    },
  };
}

/** The names reader of a command that lists runs: ended runs' names kept for this target between commands. */
export async function rememberingNames(api: Api, configDir: string): Promise<RunNames> {
  const { baseUrl } = await api.http.ready();
  return new RunNames(api, nameMemory(configDir, baseUrl));
}
