// The built sandbox under a sustained webhook fan-out (issue 35), its database on disk as a user starts it:
// for 60 s its memory stays flat and every recorded event reaches every webhook; under twice that load for
// 30 s it still answers every request, and once the load stops its backlog drains with nothing lost.
import { describe, expect, it } from 'vitest';
import { freshConfigDir, startSandboxProcess } from '../helpers/cli.js';
import { type FanoutLoad, startFanoutLoad } from '../helpers/fanout-load.js';
import { KEY } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

/** The load: some 4,000 deliveries a second on this 2-core machine (242,500 in 60 s, measured on main). */
const WEBHOOKS = 50;
const RUNS = 50;
const STAGE_MS = 2_000;
const SOAK_S = 60;
/**
 * Memory flat: the live heap (the least heap in use over 10 s of samples: each sample follows some collection)
 * of the last 10 s at most this many MB above that of seconds 15-25. RSS cannot tell in 60 s: the process's
 * native memory (malloc's arenas, V8's spaces) grows for a minute or two under this load before it levels off
 * (docs/figures.md: flat over ten minutes after that), as much as keeping every delivery grew it. The live heap
 * after each full collection, measured under this load: 35 → 42 → 77 → 107 MB over 60 s where every delivery
 * stayed in memory, 13 → 14 → 14 → 14 MB once only those in play do. The allowance is what a sandbox that falls
 * behind on a busy machine may hold by design: 8,192 events queued and 256 deliveries in play a webhook, some
 * 25 MB at this load (src/sandbox/webhooks.ts).
 */
const FLAT_MB = 40;
/** The ceiling on the sandbox's RSS. */
const MAX_RSS_MB = 300;

/** The sandbox's memory as it reports it (GET /_sandbox/stats); null when it did not answer in time. */
async function memoryOf(url: string): Promise<{ heap_used: number; rss: number } | null> {
  const res = await fetch(`${url}/_sandbox/stats`, {
    headers: { authorization: `Bearer ${KEY}` },
    signal: AbortSignal.timeout(10_000),
  }).catch(() => null);
  return res?.ok ? ((await res.json()) as { memory: { heap_used: number; rss: number } }).memory : null;
}

async function sandbox(): Promise<{ url: string; pid: number; stop: () => Promise<unknown> }> {
  // Its default data folder in a fresh config folder: the database on disk, as a user starts it.
  const { url, proc } = await startSandboxProcess(
    ['--port', '0', '--rate-limit', '0', '--stage-ms', String(STAGE_MS)],
    { configDir: freshConfigDir(), timeout: 600_000 },
  );
  return { url, pid: proc.pid!, stop: () => (proc.kill('SIGTERM'), proc) };
}

/** Once the load has stopped (every run canceled or ended): until every webhook has every recorded event. */
async function drained(load: FanoutLoad): Promise<void> {
  let last = await load.missing();
  await until(
    async () => (last = await load.missing()).total === 0 && last.unread === 0,
    'every recorded event at every webhook',
    { timeoutMs: 180_000, pollMs: 1_000, seen: () => JSON.stringify({ ...last, byWebhook: undefined }) },
  );
  expect(last.recorded).toBeGreaterThan(0);
  const stats = await load.stats();
  expect(stats.badSignature).toBe(0);
}

/** A fresh sandbox under the load with `runs` runs moving while `during` runs; then the load stops (every run
 * canceled or ended) and every recorded event must reach every webhook. */
async function underLoad(
  runs: number,
  during: (sb: { url: string }, load: FanoutLoad) => Promise<void>,
): Promise<void> {
  const sb = await sandbox();
  const load = await startFanoutLoad(sb.url, KEY, { webhooks: WEBHOOKS, runs, stageMs: STAGE_MS });
  try {
    await during(sb, load);
    await load.stop({ cancel: true });
    await drained(load);
  } finally {
    await load.close();
    await sb.stop();
  }
}

// One file, its two loads one after the other: each needs the cores it can get.
describe.sequential('a sandbox under sustained webhook fan-out', () => {
  it(`keeps its memory flat for ${SOAK_S} s and loses nothing`, async () => {
    await underLoad(RUNS, async (sb, load) => {
      const t0 = Date.now();
      const samples: Array<{ s: number; heap: number; rss: number }> = [];
      const sample = async () => {
        const m = (await memoryOf(sb.url)) ?? { heap_used: Number.NaN, rss: Number.NaN };
        samples.push({ s: (Date.now() - t0) / 1000, heap: m.heap_used / 2 ** 20, rss: m.rss / 2 ** 20 });
        return samples.at(-1)!.s >= SOAK_S;
      };
      await until(sample, `${SOAK_S} s of load`, { timeoutMs: (SOAK_S + 30) * 1000, pollMs: 1_000 });
      const least = (from: number, to: number) => {
        const heaps = samples.filter((x) => x.s >= from && x.s < to && Number.isFinite(x.heap)).map((x) => x.heap);
        // (a window the sandbox hardly answered in tells nothing: it fails here rather than pass)
        expect(heaps.length, `samples answered between ${from} and ${to} s`).toBeGreaterThanOrEqual(5);
        return Math.min(...heaps);
      };
      const series = samples.map((x) => `${x.s.toFixed(0)}s ${x.heap.toFixed(0)}/${x.rss.toFixed(0)}`).join(', ');
      const stats = await load.stats();
      const shape = `heap/RSS MB: ${series}; ${stats.deliveries} deliveries, ${load.created} runs`;
      expect(least(SOAK_S - 10, SOAK_S + 1), shape).toBeLessThanOrEqual(least(15, 25) + FLAT_MB);
      expect(stats.duplicates, 'no event delivered twice to a webhook (no restart here)').toBe(0);
      expect(Math.max(...samples.map((x) => x.rss).filter(Number.isFinite)), shape).toBeLessThan(MAX_RSS_MB);
    });
  }, 420_000);

  it('under twice the load for 30 s it answers every request, and once the load stops the backlog drains', async () => {
    await underLoad(2 * RUNS, async (sb) => {
      const t0 = Date.now();
      const answers: string[] = [];
      await until(
        async () => {
          answers.push(await probe(sb.url));
          return Date.now() - t0 >= 30_000;
        },
        '30 s of twice the load',
        { timeoutMs: 120_000, pollMs: 200 },
      );
      const bad = answers.filter((a) => a !== '200' && a !== '429 with Retry-After');
      expect(bad, `of ${answers.length} probes`).toEqual([]);
    });
  }, 420_000);
});

/** One API request as a script would make it: its status, or what went wrong instead. */
async function probe(url: string): Promise<string> {
  try {
    const res = await fetch(`${url}/v1/runs?limit=5`, {
      headers: { authorization: `Bearer ${KEY}` },
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    if (res.status === 429) return res.headers.get('retry-after') ? '429 with Retry-After' : '429 without Retry-After';
    return String(res.status);
  } catch (err) {
    return `no answer: ${(err as Error).message}`;
  }
}
