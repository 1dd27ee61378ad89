// `orc __complete runs|gated-runs` in process: each run described as `name · status · gate or stage`, the names
// read within the same budget as the list (what is not in by then goes without: never nothing because of names).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complete } from '../../src/cli/complete.js';
import { runNameOf } from '../../src/contract/run-name.js';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';

const IDEA = { pitch: 'A tide table for sailors', audience: 'sailors', monetization: 'free' } as const;

let sb: TestSandbox;
let gated: string;
let moving: string;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  moving = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  gated = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run: gated, to: 'gate:brand' });
  await call('PATCH', `/v1/runs/${gated}/spec`, { name: 'Tide Table' });
});
afterAll(() => sb.stop());

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${sb.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then((r) => r.json());

/** What the shell would get, with a fresh cache folder; `budgetMs` as ORC_COMPLETE_BUDGET_MS. */
async function completeIn(source: string, budgetMs: number): Promise<string[]> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const env = {
    ORC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'orc-complete-')),
    ORC_NO_KEYCHAIN: '1',
    ORC_BASE_URL: sb.url,
    ORC_API_KEY: sb.apiKey,
    ORC_COMPLETE_BUDGET_MS: String(budgetMs),
  };
  expect(await complete([source], { stdout, env })).toBe(0);
  return out.split('\n').filter(Boolean);
}

describe('orc __complete runs', () => {
  it('describes each run as name · status · gate or stage', async () => {
    const pitched = runNameOf(await call('GET', `/v1/runs/${moving}/spec`));
    expect(pitched).toMatch(/\w/);
    expect(await completeIn('runs', 20_000)).toEqual([
      `${gated}\tTide Table · awaiting_approval · gate brand`,
      `${moving}\t${pitched} · running · 01_intake`,
    ]);
    expect(await completeIn('gated-runs', 20_000)).toEqual([`${gated}\tTide Table · awaiting_approval · gate brand`]);
  });

  it('names not read within the budget are left out, the runs are not', async () => {
    // The spec reads stand still (the latency waits on the sandbox's manual clock); the list answers at once.
    await call('POST', '/_sandbox/faults', { route: 'GET /v1/runs/{run}/spec', latency_ms: 3_600_000 });
    try {
      expect(await completeIn('runs', 3_000)).toEqual([
        `${gated}\tawaiting_approval · gate brand`,
        `${moving}\trunning · 01_intake`,
      ]);
    } finally {
      await call('DELETE', '/_sandbox/faults');
    }
  });
});
