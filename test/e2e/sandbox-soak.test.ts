// The built sandbox under a sustained webhook fan-out (issue 35), its database on disk as a user starts it:
// for 60 s its memory stays flat and every recorded event reaches every webhook; under twice that load for
// 30 s it still answers every request, and once the load stops its backlog drains with nothing lost.
import { existsSync, readFileSync } from 'node:fs';
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
/** The most the mean RSS of the last 10 s may exceed that of seconds 15-25 by (the start's growth is over by
 * then). Measured where every delivery stayed in memory: 1.33 and 1.35 (some 2.7 MB a second). */
const FLAT = 1.2;

const withProc = existsSync('/proc/self/status');
if (!withProc) process.stderr.write('skipping the sandbox soak: it reads RSS from /proc (Linux only)\n');

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

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

// One file, its two loads one after the other: each needs the cores it can get.
describe.runIf(withProc).sequential('a sandbox under sustained webhook fan-out', () => {
  it(`keeps its memory flat for ${SOAK_S} s and loses nothing`, async () => {
    const sb = await sandbox();
    const load = await startFanoutLoad(sb.url, KEY, { webhooks: WEBHOOKS, runs: RUNS, stageMs: STAGE_MS });
    try {
      const t0 = Date.now();
      const samples: Array<{ s: number; mb: number }> = [];
      await until(
        () => (samples.push({ s: (Date.now() - t0) / 1000, mb: rssMb(sb.pid) }), samples.at(-1)!.s >= SOAK_S),
        `${SOAK_S} s of load`,
        { timeoutMs: (SOAK_S + 30) * 1000, pollMs: 1_000 },
      );
      const mean = (from: number, to: number) => {
        const xs = samples.filter((x) => x.s >= from && x.s < to).map((x) => x.mb);
        return xs.reduce((a, b) => a + b, 0) / xs.length;
      };
      const series = samples.map((x) => `${x.s.toFixed(0)}s ${x.mb.toFixed(0)}`).join(', ');
      const stats = await load.stats();
      const shape = `RSS MB: ${series}; ${stats.deliveries} deliveries, ${load.created} runs`;
      expect(mean(SOAK_S - 10, SOAK_S + 1), shape).toBeLessThanOrEqual(mean(15, 25) * FLAT);
      await load.stop({ cancel: true });
      await drained(load);
    } finally {
      await load.close();
      await sb.stop();
    }
  }, 420_000);

  it('under twice the load for 30 s it answers every request, and once the load stops the backlog drains', async () => {
    const sb = await sandbox();
    const load = await startFanoutLoad(sb.url, KEY, { webhooks: WEBHOOKS, runs: 2 * RUNS, stageMs: STAGE_MS });
    try {
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
      await load.stop({ cancel: true });
      await drained(load);
    } finally {
      await load.close();
      await sb.stop();
    }
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
