// Whether a process still runs, as the sandbox lock, `sandbox stop` and the listener's records ask it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isAlive, processStartTime } from '../../src/lib/pid.js';
import { until } from '../helpers/until.js';

describe('isAlive', () => {
  it('is false for a process that has exited but is not reaped yet (a zombie), as a background sandbox is until init reaps it', async () => {
    // The child exits a moment after its shell has become `sleep 30`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(
        await new Promise<string>((r) => parent.stdout!.once('data', (c: Buffer) => r(c.toString().trim()))),
      );
      const state = () => {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      };
      await until(() => state() === 'Z', 'the child to exit and stay unreaped');
      expect(() => process.kill(pid, 0)).not.toThrow(); // what signal 0 alone would believe
      expect(isAlive(pid)).toBe(false);
      expect(isAlive(parent.pid!)).toBe(true);
    } finally {
      parent.kill();
    }
  });

  it('names a process for good with its start time: the same pid later is another process', () => {
    const mine = processStartTime(process.pid);
    expect(mine).toMatch(/\S/);
    expect(processStartTime(process.pid)).toBe(mine);
    expect(processStartTime(2 ** 22 + 1)).toBeNull();
  });
});
