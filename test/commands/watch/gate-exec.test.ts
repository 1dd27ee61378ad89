// The gate hook's bound holds against what the user's line leaves behind: a process it puts in the background
// (in a session of its own, out of reach of the hook's process group) keeps the hook's stderr open, yet the hook
// is over when its shell has exited, or has been killed at the bound.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runGateHook } from '../../../src/commands/watch/gate-exec.js';
import { systemClock } from '../../../src/lib/clock.js';
import { needTool } from '../../helpers/tools.js';

const withSetsid = needTool('setsid', 'the gate hook tests with a process in a session of its own', 'util-linux');
const EVENT = {
  run_id: 'run_1',
  gate: 'idea',
  opened_at: new Date(0).toISOString(),
  hint: 'orc gate approve run_1 idea',
};
const left: string[] = [];
afterEach(() => {
  for (const file of left.splice(0)) {
    if (!existsSync(file)) continue;
    try {
      process.kill(Number(readFileSync(file, 'utf8')), 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** A line that leaves a sleeper in a session of its own, holding the hook's stderr, its pid in `file`. */
const sleeperIn = (file: string) => `setsid sh -c 'echo $$ > ${file}; exec sleep 300' &`;

it.runIf(withSetsid)('is over when its shell exits, though a process it left behind holds its stderr', async () => {
  const pid = join(mkdtempSync(join(tmpdir(), 'orc-hook-')), 'pid');
  left.push(pid);
  const said = await runGateHook(`${sleeperIn(pid)} echo done`, EVENT, {
    env: process.env,
    clock: systemClock,
    timeoutMs: 600_000,
  });
  expect(said).toBeNull();
});

it.runIf(withSetsid)(
  'killed at its bound, it is said so, though a process it left behind holds its stderr',
  async () => {
    const pid = join(mkdtempSync(join(tmpdir(), 'orc-hook-')), 'pid');
    left.push(pid);
    const said = await runGateHook(`${sleeperIn(pid)} exec sleep 300`, EVENT, {
      env: process.env,
      clock: systemClock,
      timeoutMs: 200,
    });
    expect(said).toBe('still running after 0.2 s, killed');
  },
);
