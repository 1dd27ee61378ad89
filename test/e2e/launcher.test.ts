// orc, the program, as built (bin/orc.js, the launcher): --version and help, a word it does not know, and on
// an old Node the hand-over to the Node beside it (its signals, its environment), as a user meets them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { freshConfigDir, NO_PROXIES, orc, ORC_BIN } from '../helpers/cli.js';

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
