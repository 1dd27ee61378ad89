// `orc __complete <runs|webhooks|profiles> [--values]`: the values shell completion cannot know by itself,
// one a line (`value<TAB>description`, a run's being `name · status · gate or stage`; `--values`: the value
// alone, for bash). It answers within about 300 ms or not at all, keeps recent run ids a short while in the
// config folder, and never prompts, starts the sandbox, retries, or writes a word to stderr: whatever goes
// wrong, the shell just gets nothing.
import type { RunOptions } from './execute.js';
import type { Api } from '../api/index.js';

/** The service's time to answer (ms): 300, or ORC_COMPLETE_BUDGET_MS where a machine is known to be slow (the
 * tests' own, whose cores another process keeps busy). */
function budgetMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.ORC_COMPLETE_BUDGET_MS);
  // No more than a timer can hold (2^31 - 1 ms): past that, setTimeout fires at once.
  return Number.isFinite(given) && given > 0 ? Math.min(given, 2 ** 31 - 1) : 300;
}
const FRESH_MS = 20_000;
const STALE_MS = 10 * 60_000;

interface Item {
  value: string;
  description: string;
}

interface Cache {
  at: number;
  items: Item[];
}

export async function complete(args: string[], opts: RunOptions = {}): Promise<number> {
  const out = opts.stdout ?? process.stdout;
  const env = opts.env ?? process.env;
  const [source] = args;
  const valuesOnly = args.includes('--values');
  let items: Item[] = [];
  try {
    items = await itemsOf(source, env);
  } catch (err) {
    if (env.ORC_COMPLETE_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    items = [];
  }
  const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').trim();
  const lines = items
    .map((i) => (valuesOnly ? clean(i.value) : `${clean(i.value)}\t${clean(i.description)}`))
    .filter((l) => l && !/\s/.test(l.split('\t')[0]!));
  if (lines.length) out.write(`${lines.join('\n')}\n`);
  return 0;
}

async function itemsOf(source: string | undefined, env: NodeJS.ProcessEnv): Promise<Item[]> {
  const { configDir } = await import('../config/paths.js');
  const dir = configDir(env);
  if (source === 'profiles') {
    const { readConfig, BUILT_IN_PROFILE } = await import('../config/profiles.js');
    const config = readConfig(dir);
    const names = Object.entries(config.profiles).map(([name, p]) => ({ value: name, description: p.base_url }));
    return config.profiles[BUILT_IN_PROFILE]
      ? names
      : [{ value: BUILT_IN_PROFILE, description: 'the local sandbox (built in)' }, ...names];
  }
  if (source !== 'runs' && source !== 'gated-runs' && source !== 'webhooks') return [];
  const { resolveTarget } = await import('../config/target.js');
  const target = await resolveTarget({}, env, dir);
  const { readCache, writeCache } = await import('../config/cache.js');
  const cacheFile = `completion-${source}.json`;
  const read = readCache<Cache>(dir, cacheFile, target.baseUrl);
  const cached = read && Array.isArray(read.items) && typeof read.at === 'number' ? read : null;
  if (cached && Date.now() - cached.at < FRESH_MS) return cached.items;
  // The service gets 300 ms from here; then the stale list, or nothing.
  const BUDGET_MS = budgetMs(env);
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), BUDGET_MS);
  });
  gaveUp.catch(() => {});
  try {
    const { createApi } = await import('../api/index.js');
    const api = createApi({
      baseUrl: target.baseUrl,
      apiKey: target.key,
      userAgent: 'orc-completion',
      maxRetries: 0,
      deadlineMs: BUDGET_MS,
      attemptTimeoutMs: BUDGET_MS,
      connectTimeoutMs: BUDGET_MS,
    });
    let items: Item[];
    if (source === 'runs' || source === 'gated-runs') {
      items = await runItems(api, source, gaveUp);
    } else {
      const page = await Promise.race([api.webhooks.list({ limit: 50 }), gaveUp]);
      items = page.data.map((w) => ({ value: w.id, description: w.url }));
    }
    void api.http.close();
    writeCache(dir, cacheFile, target.baseUrl, { at: Date.now(), items });
    return items;
  } catch (err) {
    // Unreachable or refused: what was seen recently is better than nothing.
    if (cached && Date.now() - cached.at < STALE_MS) return cached.items;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The newest runs (after `gate approve|reject`: those waiting at a gate), described as a person knows them. */
async function runItems(api: Api, source: 'runs' | 'gated-runs', gaveUp: Promise<never>): Promise<Item[]> {
  const page = await Promise.race([
    api.runs.list({ limit: 20, ...(source === 'gated-runs' ? { status: 'awaiting_approval' } : {}) }),
    gaveUp,
  ]);
  // Their names in the same budget: those read by then (none, if none) go in; never later, never nothing.
  const names = new (await import('../api/run-names.js')).RunNames(api);
  await Promise.race([names.of(page.data.map((r) => r.id)), gaveUp.catch(() => {})]);
  return page.data.map((r) => ({
    value: r.id,
    description: [names.peek(r.id), r.status, r.gate_pending ? `gate ${r.gate_pending}` : r.stage]
      .filter(Boolean)
      .join(' · '),
  }));
}
