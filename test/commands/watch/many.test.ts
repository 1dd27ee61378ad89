// Watching more runs than the request pool's connections: each event stream is held open for as long as its
// run goes, so the streams have connections of their own; the requests a watch makes beside them (is this the
// gate the run waits at, its gates' history, its name) never wait behind them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_SOCKETS } from '../../../src/api/transport.js';
import { startSandbox, type TestSandbox } from '../../../src/sdk/testing.js';
import { runOrc } from '../../helpers/run.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
});
afterAll(() => sb.stop());

it(`watch --all over more runs than the ${MAX_SOCKETS} connections requests share: every gate is seen`, async () => {
  const ids: string[] = [];
  for (let i = 0; i < MAX_SOCKETS + 4; i++) {
    const run = await sb.client.runs.create({
      mode: 'idea',
      idea: { pitch: `Tide table ${i}`, audience: 'sailors', monetization: 'free' },
    });
    await sb.advance({ run: run.id, to: 'gate:idea' });
    ids.push(run.id);
  }
  // Each run's watch ends at its gate (exit 6): only once the desk has asked the service about each of them.
  const r = await runOrc(['watch', '--all', '--on-gate', 'exit', '--json'], {
    env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey },
  });
  expect(r.exitCode, r.stderr).toBe(6);
  const gated = new Set(
    r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'run.gate_pending')
      .map((e) => e.run_id),
  );
  expect([...gated].sort()).toEqual([...ids].sort());
}, 60_000);
