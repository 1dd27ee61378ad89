// orc outside its checkout: the npm package as `npm install -g` of the tarball gives it (one package, the
// code bundled, the keychain's native module optional), on Node 22 and 24 and refused in one line on an
// older one; and the standalone executable with no Node at all (an empty PATH). Each gets through the
// README's first command against a sandbox it starts itself.
import { execa } from 'execa';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  buildStandalone,
  freePort,
  installedPackages,
  nodeFolder,
  oldNode,
  packAndInstall,
  readmeFirstCommand,
} from '../helpers/install.js';

const ci = Boolean(process.env.CI) && process.env.CI !== 'false';

/** A user's environment, nothing of the test runner's: a home, a config folder, the given PATH. */
function userEnv(path: string): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'orc-home-'));
  return { HOME: home, ORC_CONFIG_DIR: join(home, 'config'), PATH: path, ORC_NO_KEYCHAIN: '1' };
}

type Orc = (args: string[]) => ReturnType<typeof execa>;

/** With a quick sandbox started by this orc (on a port free a moment ago): the README's first command
 * goes through, then `more`; the sandbox is stopped after. */
async function readmeRun(bin: string, env: Record<string, string>, more: (orc: Orc) => Promise<void> = async () => {}) {
  const port = String(await freePort());
  const e = { ...env, ORC_SANDBOX_PORT: port };
  const orc: Orc = (args) => execa(bin, args, { env: e, extendEnv: false, reject: false, timeout: 90_000, input: '' });
  const started = await orc(['sandbox', 'start', '--detach', '--port', port, '--stage-ms', '20']);
  expect(started.exitCode, String(started.stderr)).toBe(0);
  try {
    const r = await orc(readmeFirstCommand());
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toMatch(/run_\S+ accepted/);
    // --jq: jq's WebAssembly is found where this orc keeps it.
    expect((await orc(['run', 'list', '--json', '--jq', '.[0].status'])).stdout).toBe('accepted');
    await more(orc);
  } finally {
    await orc(['sandbox', 'stop']);
  }
}

describe('the npm package', () => {
  let installed: Awaited<ReturnType<typeof packAndInstall>>;
  beforeAll(async () => {
    installed = await packAndInstall();
  }, 180_000);

  it('installs orc and nothing else but the keychain module, optional; no install script; no source maps', async () => {
    const extra = installedPackages(installed.prefix);
    for (const name of extra) expect(name).toMatch(/^@napi-rs\/keyring(-[a-z0-9-]+)?$/);
    expect(installed.installLog).not.toMatch(/install-scripts|preinstall|postinstall/);
    const files = (await execa('tar', ['-tzf', installed.tarball])).stdout.split('\n');
    expect(files).toContain('package/dist/main.js');
    expect(files).toContain('package/dist/jq.wasm');
    expect(files).toContain('package/dist/THIRD-PARTY-NOTICES.txt');
    expect(files).toContain('package/LICENSE');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/'))).toEqual([]);
  });

  it('is ready to publish: npm publish --dry-run passes and warns of nothing in the package', async () => {
    const r = await execa('npm', ['publish', '--dry-run', '--ignore-scripts'], { cwd: ROOT, all: true, reject: false });
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toContain('+ orc-cli@');
    // What npm says of the package as it would publish it (`npm warn publish …`): only that nobody is logged
    // in, which a dry run does not need. (Under `npm test`, npm also warns of its own npm_config_* variables.)
    const warnings = String(r.all)
      .split('\n')
      .filter((l) => /npm warn publish/.test(l) && !/logged in/.test(l));
    expect(warnings).toEqual([]);
  });

  it.each([22, 24])(
    'runs the README first command on Node %i',
    async (major) => {
      const env = userEnv(`${await nodeFolder(major)}:/usr/bin:/bin`);
      const v = await execa(installed.bin, ['--version'], { env, extendEnv: false });
      expect(v.stdout).toBe(
        JSON.parse((await execa('cat', [join(installed.prefix, 'lib/node_modules/orc-cli/package.json')])).stdout)
          .version,
      );
      const node = await execa('node', ['--version'], { env, extendEnv: false });
      expect(node.stdout).toMatch(new RegExp(`^v${major}\\.`));
      await readmeRun(installed.bin, env);
    },
    240_000,
  );

  it('says in one line which Node it needs, and where to get the standalone file, on an older Node', async (t) => {
    const old = await oldNode();
    if (!old) {
      if (ci) throw new Error('CI needs a Node older than 22.12 on the machine (Debian 12 has 18/20) to try this');
      process.stderr.write('skipping the old-Node message: no Node older than 22.12 here\n');
      t.skip();
      return;
    }
    const r = await execa(old, [installed.bin, 'run', 'list'], {
      env: userEnv('/usr/bin:/bin'),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/needs Node\.js 22\.12 or newer/);
    expect(lines[0]).toMatch(/standalone orc for Linux x64/);
  });
});

describe('the standalone executable', () => {
  let exe: string;
  beforeAll(async () => {
    exe = await buildStandalone();
  }, 180_000);

  it('answers --version with no Node anywhere: an empty PATH', async () => {
    const r = await execa(exe, ['--version'], { env: userEnv(''), extendEnv: false });
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('starts the sandbox, runs the README first command on it, and serves the console page from inside itself', async () => {
    await readmeRun(exe, userEnv(''), async (orc) => {
      const id = String((await orc(['run', 'list', '--json', '--jq', '.[0].id'])).stdout);
      const out = mkdtempSync(join(tmpdir(), 'orc-pull-'));
      const pulled = await orc(['artifacts', 'pull', id, '--dir', out]);
      expect(pulled.exitCode, String(pulled.stderr)).toBe(0);
      expect(readdirSync(out).length).toBeGreaterThan(0);
      const link = JSON.parse(String((await orc(['sandbox', 'console', '--no-open', '--json'])).stdout)).url as string;
      const login = await fetch(link, { redirect: 'manual' });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(new URL('/console/', link), { headers: { cookie } });
      expect(page.status).toBe(200);
      const script = /src="([^"]+\.js)"/.exec(await page.text())![1]!;
      expect((await fetch(new URL(script, new URL('/console/', link)), { headers: { cookie } })).status).toBe(200);
    });
  }, 240_000);
});
