// orc outside its checkout: the npm package as `npm install -g` of the tarball gives it (one package, the
// code bundled, the keychain's native module optional), on Node 22 and 24 and refused in one line on an
// older one. Each gets through the README's first command against a sandbox it starts itself. (The
// standalone executable is e2e/standalone.test.ts: apart, the two builds run at once.)
import { execa } from 'execa';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  installedPackages,
  nodeFolder,
  oldNode,
  packAndInstall,
  readmeRun,
  userEnv,
} from '../helpers/install.js';

const ci = Boolean(process.env.CI) && process.env.CI !== 'false';

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
