// `orc sandbox start --detach`, `status` and `stop`, run as built: the record of a background sandbox, its
// key kept out of sight, one sandbox per data folder, and a stop that signals only a proven sandbox.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { freshConfigDir, orc, startSandboxProcess, type OrcProcess } from '../helpers/cli.js';

import { KEY } from '../helpers/sandbox.js';

describe('orc sandbox start --detach, status, stop', () => {
  it('runs in the background, reports itself, refuses a second one, and stops', async () => {
    const configDir = freshConfigDir();
    const started = await orc(['sandbox', 'start', '--detach', '--port', '0', '--memory'], { configDir });
    expect(started.exitCode, started.stderr).toBe(0);
    const url = /listening on (\S+)/.exec(started.stdout)![1]!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(existsSync(join(configDir, 'sandbox.log'))).toBe(true);

    const status = await orc(['sandbox', 'status', '--json'], { configDir });
    expect(status.exitCode).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({ running: true, url, detached: true, pid: expect.any(Number) });

    const second = await orc(['sandbox', 'start', '--detach', '--port', '0', '--memory'], { configDir });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain('already running');

    const stopped = await orc(['sandbox', 'stop'], { configDir });
    expect(stopped.exitCode).toBe(0);
    expect(stopped.stderr).toContain(`pid ${s.pid}`);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    const after = await orc(['sandbox', 'status'], { configDir });
    expect(after.exitCode).toBe(1);
    expect(after.stdout).toBe('not running');
    const again = await orc(['sandbox', 'stop', '--json'], { configDir });
    expect(again.exitCode).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ stopped: false, running: false });
  });

  it('reports why a background sandbox could not start', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = String((blocker.address() as { port: number }).port);
      const r = await orc(['sandbox', 'start', '--detach', '--port', port, '--memory']);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('in use');
    } finally {
      blocker.close();
    }
  });

  it('keeps its key out of sight: redacted in the banner and log, from ORC_SANDBOX_API_KEY, never in argv', async () => {
    const configDir = freshConfigDir();
    const key = 'sk_test_SandboxSecret4242';
    const started = await orc(['sandbox', 'start', '--detach', '--port', '0', '--memory'], {
      configDir,
      env: { ORC_SANDBOX_API_KEY: key },
    });
    expect(started.exitCode, started.stderr).toBe(0);
    const url = /listening on (\S+)/.exec(started.stdout)![1]!;
    try {
      const pid = JSON.parse((await orc(['sandbox', 'status', '--json'], { configDir })).stdout).pid as number;
      expect((await fetch(`${url}/v1/runs`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      const log = readFileSync(join(configDir, 'sandbox.log'), 'utf8');
      expect(log).toContain('test key sk_test_…4242');
      expect(log).not.toContain('SandboxSecret');
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain('SandboxSecret'); // what ps shows
    } finally {
      await orc(['sandbox', 'stop'], { configDir });
    }
  });

  it('a sandbox given no key has its own: one per data folder, kept across restarts, new in memory; orc takes it from the record', async () => {
    const own = { ORC_SANDBOX_API_KEY: undefined };
    const status = (url: string, key: string) =>
      fetch(`${url}/v1/runs`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    const keyOf = (configDir: string) =>
      JSON.parse(readFileSync(join(configDir, 'sandbox.json'), 'utf8')).api_key as string;
    const data = mkdtempSync(join(tmpdir(), 'orc-data-'));
    const configDir = freshConfigDir();
    const started = async (args: string[], dir: string) => {
      const s = await startSandboxProcess(['--port', '0', ...args], { configDir: dir, env: own });
      return { ...s, key: keyOf(dir) };
    };
    const stop = async (s: { proc: OrcProcess }) => {
      s.proc.kill('SIGTERM');
      await s.proc;
    };
    const first = await started(['--data-dir', data], configDir);
    try {
      expect(first.key).toMatch(/^sk_test_[0-9a-f]{32}$/);
      expect(await status(first.url, KEY)).toBe(401); // the key every sandbox once shared
      expect(await status(first.url, first.key)).toBe(200);
      expect(readFileSync(join(data, 'sandbox.key'), 'utf8').trim()).toBe(first.key);
      const listed = await orc(['run', 'list', '--json'], { configDir, env: own });
      expect(listed.exitCode, listed.stderr).toBe(0);
    } finally {
      await stop(first);
    }
    const again = await started(['--data-dir', data], configDir);
    await stop(again);
    expect(again.key).toBe(first.key);
    const other = await started(['--data-dir', mkdtempSync(join(tmpdir(), 'orc-data-'))], freshConfigDir());
    await stop(other);
    const memory = [await started(['--memory'], freshConfigDir()), await started(['--memory'], freshConfigDir())];
    await Promise.all(memory.map(stop));
    const keys = [first.key, other.key, ...memory.map((m) => m.key)];
    expect(new Set(keys).size).toBe(4);
    for (const key of keys) expect(key).not.toBe(KEY);
    // exec hands its command the key of its own sandbox
    const exec = await orc(['sandbox', 'exec', '--', process.execPath, '-e', 'console.log(process.env.ORC_API_KEY)'], {
      env: own,
    });
    expect(exec.stdout).toMatch(/^sk_test_[0-9a-f]{32}$/m);
    expect(exec.stdout).not.toContain(KEY);
  }, 60_000);

  it('a second sandbox on the same data folder exits 1 naming the pid that holds it', async () => {
    const data = mkdtempSync(join(tmpdir(), 'orc-data-'));
    const { proc } = await startSandboxProcess(['--port', '0', '--data-dir', data]);
    try {
      const second = await orc(['sandbox', 'start', '--port', '0', '--data-dir', data]);
      expect(second.exitCode).toBe(1);
      expect(second.stderr).toContain(`is in use by another sandbox (pid ${proc.pid})`);
      expect(second.stderr).not.toMatch(/\n\s+at /);
    } finally {
      proc.kill('SIGTERM');
      await proc;
    }
  });

  it('two sandboxes started together on a folder whose old lock names a dead pid: exactly one runs, every time', async () => {
    // A pid that ran and is gone.
    const dead = (await execa(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])).stdout;
    const rounds = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const data = mkdtempSync(join(tmpdir(), 'orc-race-'));
        writeFileSync(join(data, 'sandbox.lock'), `${dead}\n`);
        const both = [
          orc(['sandbox', 'start', '--port', '0', '--data-dir', data], { timeout: 30_000 }),
          orc(['sandbox', 'start', '--port', '0', '--data-dir', data], { timeout: 30_000 }),
        ];
        // The one that listens is stopped once the other has given up (or once both listen: the failure).
        const listening = await Promise.race(
          both
            .map(
              (p, i) =>
                new Promise<number>((r) =>
                  p.stdout!.on('data', (c: Buffer) => c.toString().includes('listening on') && r(i)),
                ),
            )
            .concat(Promise.all(both).then(() => -1)),
        );
        const other = both[1 - Math.max(0, listening)]!;
        const otherDone = await Promise.race([other, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
        for (const p of both) p.kill('SIGTERM');
        const results = await Promise.all(both);
        return { listening, otherDone, results };
      }),
    );
    for (const { listening, otherDone, results } of rounds) {
      expect(listening).toBeGreaterThanOrEqual(0);
      expect(otherDone?.exitCode, results.map((r) => r.stderr).join('\n')).toBe(1);
      expect(otherDone!.stderr).toMatch(/is in use by another sandbox \(pid \d+\)/);
    }
  }, 60_000);

  it('sandbox stop signals only a process proven to be that sandbox: a reused pid is left alone, the stale record said and removed', async () => {
    const configDir = freshConfigDir();
    const bystander = execa('sleep', ['30'], { reject: false });
    await new Promise((r) => bystander.once('spawn', r));
    // A record of a sandbox that started at another time than the process now holding its pid.
    const record = {
      pid: bystander.pid,
      url: 'http://127.0.0.1:9',
      data: ':memory:',
      log: null,
      started_at: '2026-01-01T00:00:00Z',
      detached: true,
    };
    writeFileSync(join(configDir, 'sandbox.json'), JSON.stringify({ ...record, pid_started: '1' }));
    try {
      const r = await orc(['sandbox', 'stop'], { configDir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain(`the record named pid ${bystander.pid}, which is now another process (left alone)`);
      expect(() => process.kill(bystander.pid!, 0)).not.toThrow();
      expect(existsSync(join(configDir, 'sandbox.json'))).toBe(false);
      // A record of an earlier orc, without the start time: the address must answer as that pid.
      writeFileSync(join(configDir, 'sandbox.json'), JSON.stringify(record));
      expect((await orc(['sandbox', 'stop'], { configDir })).exitCode).toBe(0);
      expect(() => process.kill(bystander.pid!, 0)).not.toThrow();
    } finally {
      bystander.kill();
      await bystander;
    }
  });
});
