// `orc sandbox start|status|stop` and the launcher, run as built, as a user would.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { freshConfigDir, NO_PROXIES, orc, ORC_BIN, startSandboxProcess, type OrcProcess } from '../helpers/cli.js';
import { runOrc } from '../helpers/run.js';
import { KEY } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

const get = (url: string, path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('orc, the program', () => {
  it('prints its version, and help with examples (the help of every command is checked in process, in test/cli/program.test.ts)', async () => {
    const [v, help, ...subs] = await Promise.all([
      orc(['--version']),
      orc(['--help']),
      ...['sandbox start', 'run create', 'gate reject'].map((cmd) => orc([...cmd.split(' '), '--help'])),
    ]);
    expect(v.exitCode).toBe(0);
    expect(v.stdout).toBe(pkg.version);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('sandbox');
    for (const h of subs) {
      expect(h.exitCode).toBe(0);
      expect(h.stdout).toMatch(/Examples:\n\s+\$ orc (sandbox|run|gate) /);
    }
  });

  it('answers an unknown command or flag with exit 2 and a message naming it', async () => {
    const cmd = await orc(['sandbx']);
    expect(cmd.exitCode).toBe(2);
    expect(cmd.stderr).toMatch(/sandbx/);
    expect(cmd.stderr).toMatch(/sandbox/); // the suggestion
    const flag = await orc(['sandbox', 'start', '--prot', '1']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain('--prot');
    const group = await orc(['sandbox']);
    expect(group.exitCode).toBe(2);
  });

  it('on an old Node, hands over to the Node installed beside it; without one, says in one line what it needs', () => {
    // This machine's system Node is older than 22.12; where it is not, the check has nothing to show.
    let version = '';
    try {
      version = execFileSync('/usr/bin/node', ['--version'], { encoding: 'utf8' }).trim();
    } catch {
      return;
    }
    const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 12)) return;
    // As `npm link` leaves it: the old node first, node_modules/node beside orc.
    expect(execFileSync('/usr/bin/node', [ORC_BIN, '--version', '--json'], { encoding: 'utf8' }).trim()).toMatch(
      /^\{"version":"\d+\.\d+\.\d+/,
    );
    // A copy with no Node beside it (ORC_NO_HANDOVER stands for that): one line, exit 1.
    let stderr = '';
    let status = 0;
    try {
      execFileSync('/usr/bin/node', [ORC_BIN, '--version'], {
        encoding: 'utf8',
        stdio: 'pipe',
        env: { ...process.env, ORC_NO_HANDOVER: '1' },
      });
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
      status = (err as { status: number }).status;
    }
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('22.12');
    expect(stderr).toContain(version.slice(1));
  });
});

/** Whether this machine's system Node (/usr/bin/node) is older than orc needs, so the launcher hands over. */
function oldSystemNode(): boolean {
  try {
    const version = execFileSync('/usr/bin/node', ['--version'], { encoding: 'utf8' }).trim();
    const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
    return major < 22 || (major === 22 && minor < 12);
  } catch {
    return false;
  }
}

describe('the launcher on an old Node', () => {
  it('passes SIGTERM and SIGHUP on to the Node 24 it handed over to, and exits with its status', async () => {
    if (!oldSystemNode()) return; // no system Node, or a current one that runs orc itself: nothing hands over
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
      const proc = execa('/usr/bin/node', [ORC_BIN, 'sandbox', 'start', '--port', '0', '--memory'], {
        env: { ...process.env, ORC_CONFIG_DIR: freshConfigDir() },
        reject: false,
      });
      const url = await new Promise<string>((resolve) => {
        let out = '';
        proc.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /listening on (\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
      });
      proc.kill(signal); // the launcher's pid: the sandbox is its child
      const r = await proc;
      expect(r.exitCode, `${signal}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain(`${signal}: stopping the sandbox`);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    }
  });
});

describe('orc sandbox exec, from the launcher on an old Node', () => {
  it('leaves nothing of its own in the environment of the command: an orc inside, on the same old Node, runs', async () => {
    if (!oldSystemNode()) return;
    // `orc` on PATH as `npm link` leaves it, the old node first: `orc sandbox exec -- orc run list`.
    const bin = mkdtempSync(join(tmpdir(), 'orc-bin-'));
    symlinkSync(ORC_BIN, join(bin, 'orc'));
    const env = {
      ...process.env,
      ...NO_PROXIES,
      ORC_API_KEY: undefined,
      ORC_BASE_URL: undefined,
      ORC_CONFIG_DIR: freshConfigDir(),
      PATH: `${bin}:/usr/bin:/bin`,
    };
    const dump = `process.stdout.write(JSON.stringify(process.env))`;
    const r = await execa('/usr/bin/node', [ORC_BIN, 'sandbox', 'exec', '--', process.execPath, '-e', dump], {
      env,
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const given = Object.keys(env).filter((k) => env[k as keyof typeof env] !== undefined);
    const added = Object.keys(JSON.parse(r.stdout) as object).filter((k) => !given.includes(k));
    expect(added.sort()).toEqual(['ORC_API_KEY', 'ORC_BASE_URL', 'ORC_SANDBOX_URL']);
    const inner = await execa('/usr/bin/node', [ORC_BIN, 'sandbox', 'exec', '--', 'orc', 'run', 'list', '--json'], {
      env,
      extendEnv: false,
      reject: false,
    });
    expect(inner.exitCode, inner.stderr).toBe(0);
    expect(JSON.parse(inner.stdout)).toEqual([]); // the fresh sandbox's runs: none
  }, 60_000);
});

describe('orc sandbox start', () => {
  it('listens on the port it prints, serves the API with its test key, and stops cleanly on SIGTERM', async () => {
    const configDir = freshConfigDir();
    const { url, proc } = await startSandboxProcess(['--port', '0', '--memory', '--stage-ms', '100'], { configDir });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await post(url, '/v1/runs', {
      mode: 'idea',
      idea: { pitch: 'p', audience: 'a', monetization: 'free' },
    });
    expect(created.status).toBe(201);
    expect((await get(url, '/v1/runs')).status).toBe(200);
    expect(existsSync(join(configDir, 'sandbox.json'))).toBe(true);
    proc.kill('SIGTERM');
    const r = await proc;
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(`listening on ${url}`); // stdout carries only the data line
    expect(r.stderr).toContain('SIGTERM');
    expect(r.stderr).toContain(' · stage 100 ms · ');
    expect(existsSync(join(configDir, 'sandbox.json'))).toBe(false);
  });

  it('says how long a stage takes as a duration: --stage-ms 3h is "stage 3 h", not in milliseconds', async () => {
    const { proc } = await startSandboxProcess(['--port', '0', '--memory', '--stage-ms', '3h']);
    proc.kill('SIGTERM');
    const r = await proc;
    expect(r.stderr).toContain(' · stage 3 h · ');
  });

  it('under --json prints one JSON line with its address instead', async () => {
    const proc = orc(['sandbox', 'start', '--port', '0', '--memory', '--json'], { timeout: 30_000 });
    const line = await new Promise<string>((resolveLine) => {
      let out = '';
      proc.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolveLine(out.split('\n')[0]!);
      });
    });
    const info = JSON.parse(line);
    expect(info).toMatchObject({
      listening: true,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      data: ':memory:',
    });
    expect((await fetch(`${info.url}/healthz`)).status).toBe(200);
    proc.kill('SIGTERM');
    expect((await proc).exitCode).toBe(0);
  });

  it.each([
    [['--port', 'abc'], '--port'],
    [['--port', '70000'], '--port'],
    [['--stage-ms', '0'], '--stage-ms'],
    [['--rate-limit', '-1'], '--rate-limit'],
    [['--seed', '1.5'], '--seed'],
    [['--api-key', 'sk_live_abcdef123456'], '--api-key'],
    [['--api-key', 'secret'], '--api-key'],
    [['--memory', '--data-dir', '/tmp/x'], '--memory'],
  ])('refuses %j with exit 2 naming %s, starting nothing', async (args, flag) => {
    const configDir = freshConfigDir();
    // The first through the built orc; the rest in process (the same check, without a process each).
    const r =
      args[1] === 'abc'
        ? await orc(['sandbox', 'start', ...args], { configDir })
        : await runOrc(['sandbox', 'start', ...args], { configDir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(flag);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('sk_live_abcdef123456');
    expect(existsSync(join(configDir, 'sandbox.json'))).toBe(false);
  });

  it('says so when the port is in use (exit 1)', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = String((blocker.address() as { port: number }).port);
      const r = await orc(['sandbox', 'start', '--port', port, '--memory']);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`port ${port}`);
      expect(r.stderr).toContain('in use');
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      blocker.close();
    }
  });

  it('says so when the data folder cannot be written (exit 1)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'orc-')), 'a-file');
    writeFileSync(file, 'not a folder');
    const r = await orc(['sandbox', 'start', '--port', '0', '--data-dir', join(file, 'data')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('cannot write the sandbox data folder');
    expect(r.stderr).toContain('--memory');
  });

  it('warns when it listens beyond loopback', async () => {
    const { proc } = await startSandboxProcess(['--host', '0.0.0.0', '--port', '0', '--memory']);
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/warning: .*not loopback/);
  });

  it('loses nothing it acknowledged when killed outright, and carries on after a restart', async () => {
    const configDir = freshConfigDir();
    const dataDir = mkdtempSync(join(tmpdir(), 'orc-data-'));
    const first = await startSandboxProcess(['--port', '0', '--data-dir', dataDir, '--stage-ms', '100'], { configDir });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await post(first.url, '/v1/runs', {
        mode: 'idea',
        idea: { pitch: `Run ${i}`, audience: 'a', monetization: 'free' },
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    first.proc.kill('SIGKILL');
    await first.proc;
    const second = await startSandboxProcess(['--port', '0', '--data-dir', dataDir, '--stage-ms', '100'], {
      configDir,
    });
    try {
      const list = (await (await get(second.url, '/v1/runs?limit=100')).json()) as { data: Array<{ id: string }> };
      expect(list.data.map((r) => r.id)).toEqual([...ids].reverse());
      // the runs move on from where they were
      let run: { gate_pending: string | null } = { gate_pending: null };
      const atGate = async () => {
        run = (await (await get(second.url, `/v1/runs/${ids[0]}`)).json()) as typeof run;
        return run.gate_pending === 'idea';
      };
      await until(atGate, 'the first run to reach the idea gate', { pollMs: 50, seen: () => JSON.stringify(run) });
      expect(run.gate_pending).toBe('idea');
    } finally {
      second.proc.kill('SIGTERM');
      await second.proc;
    }
  });
});

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
    writeFileSync(
      join(configDir, 'sandbox.json'),
      JSON.stringify({
        pid: bystander.pid,
        url: 'http://127.0.0.1:9',
        data: ':memory:',
        log: null,
        started_at: '2026-01-01T00:00:00Z',
        detached: true,
        pid_started: '1',
      }),
    );
    try {
      const r = await orc(['sandbox', 'stop'], { configDir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain(`the record named pid ${bystander.pid}, which is now another process (left alone)`);
      expect(() => process.kill(bystander.pid!, 0)).not.toThrow();
      expect(existsSync(join(configDir, 'sandbox.json'))).toBe(false);
      // A record of an earlier orc, without the start time: the address must answer as that pid.
      writeFileSync(
        join(configDir, 'sandbox.json'),
        JSON.stringify({
          pid: bystander.pid,
          url: 'http://127.0.0.1:9',
          data: ':memory:',
          log: null,
          started_at: '2026-01-01T00:00:00Z',
          detached: true,
        }),
      );
      expect((await orc(['sandbox', 'stop'], { configDir })).exitCode).toBe(0);
      expect(() => process.kill(bystander.pid!, 0)).not.toThrow();
    } finally {
      bystander.kill();
      await bystander;
    }
  });
});
