// The test harness (test/helpers): its sandbox, its clock and its one way of waiting, which keep the tests
// independent of how busy the machine is.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeClock } from './helpers/clock.js';
import { driveToEnd, quickClock, startTestSandbox, TEST_IPA_MIB, type TestSandbox } from './helpers/sandbox.js';
import { until, UNTIL_DEADLINE_MS } from './helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ clock: quickClock() });
});
afterAll(() => sb.close());

describe('the test sandbox', () => {
  it('makes a small ipa unless a test asks for a size: no 20 MiB made and hashed a run', async () => {
    const run = await driveToEnd(sb, (await sb.createRun('A small build')).id);
    expect(run.status).toBe('accepted');
    const ipa = await sb.call('GET', `/v1/runs/${run.id}/artifacts/ipa`);
    expect(ipa.status, ipa.text).toBe(200);
    expect(ipa.body.files[0].size).toBeGreaterThan(TEST_IPA_MIB * 1024 * 1024);
    expect(ipa.body.files[0].size).toBeLessThan((TEST_IPA_MIB + 1) * 1024 * 1024);
  });

  it('waitFor asks again when the store changes, not every few ms: a still sandbox is asked once', async () => {
    const clock = new FakeClock();
    let gets = 0;
    const still = await startTestSandbox({
      clock,
      onRequest: (method, path) => void (method === 'GET' && path.startsWith('/v1/runs/run_') && gets++),
    });
    try {
      const run = await still.createRun('Stands still');
      const waiting = still.waitFor(run.id, (r) => r.gate_pending === 'idea');
      await until(() => gets === 1, 'the first look');
      // Requests that change nothing take real time meanwhile (a poll every 20 ms would have asked again).
      for (let i = 0; i < 200; i++) await still.call('GET', '/v1/webhooks');
      expect(gets).toBe(1);
      clock.advance(10_000); // both stages of 01_intake and 02_idea pass; the gate opens
      expect((await waiting).gate_pending).toBe('idea');
    } finally {
      await still.close();
    }
  });

  it('settled: resolves once the ticks its clock had scheduled have run', async () => {
    const run = await sb.createRun('Moves on');
    await sb.settled();
    const now = (await sb.call('GET', `/v1/runs/${run.id}`)).body;
    expect(Date.parse(now.updated_at)).toBeGreaterThan(Date.parse(run.created_at));
  });
});

describe('the clock', () => {
  it('settled waits for the timers that fire by themselves, not for those the test moves', async () => {
    const clock = new FakeClock({ autoMs: 100 });
    const fired: string[] = [];
    clock.timer(50, () => fired.push('short'));
    clock.timer(60_000, () => fired.push('long'));
    await clock.settled();
    expect(fired).toEqual(['short']);
  });
});

describe('until', () => {
  it('gives a loaded machine its time and says what it waited for, and what it saw last', async () => {
    vi.useFakeTimers();
    try {
      const waiting = until(() => false, 'the moon', { seen: () => 'clouds' });
      const failed = expect(waiting).rejects.toThrow(
        `timed out after ${UNTIL_DEADLINE_MS / 1000} s waiting for the moon; last seen: clouds`,
      );
      await vi.advanceTimersByTimeAsync(10_001); // the old deadline: not reached yet
      let settled = false;
      void waiting.catch(() => {}).finally(() => (settled = true));
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(UNTIL_DEADLINE_MS);
      await failed;
    } finally {
      vi.useRealTimers();
    }
    expect(UNTIL_DEADLINE_MS).toBeGreaterThanOrEqual(20_000);
  });

  it('answers the first truthy value, and with wake asks only when told', async () => {
    let value = 0;
    let asked = 0;
    let tell = () => {};
    const got = until(() => (asked++, value), 'a value', { wake: (again) => ((tell = again), () => {}) });
    await until(() => asked === 1, 'the first look');
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(asked).toBe(1);
    value = 7;
    tell();
    expect(await got).toBe(7);
  });
});

describe('the tests themselves', () => {
  it('compare no real duration to a number of ms (those are measured by npm run bench, beside a baseline)', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const root = import.meta.dirname;
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts'));
    const found: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(root, f), 'utf8');
      // a duration: `Date.now() - t` or `performance.now() - t`, inline or kept in a name
      const names = [...text.matchAll(/(?:const|let)\s+(\w+)\s*=\s*(?:Date|performance)\.now\(\)\s*-/g)].map(
        (m) => m[1]!,
      );
      const duration = `(?:(?:Date|performance)\\.now\\(\\)\\s*-\\s*\\w+${names.map((n) => `|${n}\\b`).join('')})`;
      const upperBound = new RegExp(`expect\\(${duration}[^;]*\\)\\.toBeLessThan(?:OrEqual)?\\(`);
      text.split('\n').forEach((line, i) => upperBound.test(line) && found.push(`${f}:${i + 1}: ${line.trim()}`));
    }
    expect(found).toEqual([]);
  });

  it('wait one way: no deadline loop of their own, no expect.poll (its deadline is 1 s), only until', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const root = import.meta.dirname;
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (f) =>
        f.endsWith('.ts') && !f.startsWith('bench') && f !== join('helpers', 'until.ts') && f !== 'harness.test.ts',
    );
    const found: string[] = [];
    for (const f of files)
      readFileSync(join(root, f), 'utf8')
        .split('\n')
        .forEach(
          (line, i) =>
            /expect\.poll\(|(?:Date|performance)\.now\(\) \+ |async function until\b/.test(line) &&
            found.push(`${f}:${i + 1}: ${line.trim()}`),
        );
    expect(found).toEqual([]);
  });
});
