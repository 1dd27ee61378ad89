// `orc doctor` in process: each check passes, warns or fails with its fix; exit 0 unless one fails; it
// never starts a sandbox.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigDir, runOrc } from '../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 30_000 });
});
afterAll(() => sb.close());

const home = () => mkdtempSync(join(tmpdir(), 'orc-home-'));
const doctor = (env: Record<string, string | undefined> = {}, configDir = freshConfigDir()) =>
  runOrc(['doctor', '--json'], {
    configDir,
    env: { ORC_BASE_URL: sb.url, SHELL: '/bin/bash', HOME: home(), PATH: '/nonexistent', ...env },
  });
const check = (doc: { checks: Array<{ id: string; status: string; message: string; fix?: string }> }, id: string) =>
  doc.checks.find((c) => c.id === id)!;

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('orc doctor', () => {
  it('passes a working setup, and says how fast the service answered and that the key is accepted', async () => {
    const r = await doctor();
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(true);
    expect(check(doc, 'node')).toMatchObject({ status: 'pass', message: `Node ${process.versions.node}` });
    expect(check(doc, 'service').message).toMatch(new RegExp(`^${sb.url} answers \\(\\d+ ms\\)$`));
    expect(check(doc, 'key')).toMatchObject({ status: 'pass' });
    expect(check(doc, 'key').message).not.toContain('sk_test_orc_sandbox_local');
    expect(check(doc, 'sandbox')).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('orc help steering'),
    });
    const text = await runOrc(['doctor'], {
      env: { ORC_BASE_URL: sb.url, SHELL: '/bin/bash', HOME: home(), PATH: '/nonexistent' },
    });
    expect(text.stdout).toMatch(/^✓ Node /m);
    expect(text.stdout).toMatch(
      /^! bash completion is not set up\n {4}→ echo 'source <\(orc completion bash\)' >> ~\/\.bashrc$/m,
    );
    expect(text.stdout).toMatch(/^! orc is not on the PATH/m);
  });

  it('fails (exit 1) on a refused key, naming where the key came from', async () => {
    const r = await doctor({ ORC_API_KEY: 'sk_test_not_the_right_one_000' });
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(false);
    expect(check(doc, 'key')).toMatchObject({
      status: 'fail',
      fix: 'unset ORC_API_KEY, or set it to a key the service accepts',
    });
    expect(r.stderr).toContain('1 check failed');
  });

  it('fails on a service that does not answer, and only warns (never starts one) for the built-in sandbox', async () => {
    const port = await closedPort();
    const down = await doctor({ ORC_BASE_URL: `http://127.0.0.1:${port}` });
    expect(down.exitCode).toBe(1);
    expect(check(JSON.parse(down.stdout), 'service').status).toBe('fail');
    const builtIn = await doctor({ ORC_BASE_URL: undefined, ORC_SANDBOX_PORT: String(port) });
    expect(builtIn.exitCode, builtIn.stderr).toBe(0);
    expect(check(JSON.parse(builtIn.stdout), 'service')).toMatchObject({
      status: 'warn',
      fix: 'orc sandbox start --detach',
    });
    // Nothing was started there.
    const probe = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(probe).toBe('refused');
  });

  it('checks the config folder and file: loose modes, a file that does not parse', async () => {
    const dir = freshConfigDir();
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), '{"profiles": {', { mode: 0o644 });
    chmodSync(join(dir, 'config.json'), 0o644);
    const r = await doctor({}, dir);
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(check(doc, 'config')).toMatchObject({ status: 'warn', fix: `chmod 700 ${dir}` });
    const fileChecks = doc.checks.filter((c: { id: string }) => c.id === 'config-file');
    expect(fileChecks.map((c: { status: string }) => c.status)).toEqual(['fail', 'fail']);
    expect(fileChecks[0].fix).toBe(`chmod 600 ${join(dir, 'config.json')}`);
    expect(check(doc, 'profile').status).toBe('fail');
  });

  it('sees completion set up for bash, zsh and fish where each looks, and orc on the PATH', async () => {
    const h = home();
    writeFileSync(join(h, '.bashrc'), 'source <(orc completion bash)\n');
    expect(check(JSON.parse((await doctor({ HOME: h })).stdout), 'completion')).toMatchObject({ status: 'pass' });
    const fpath = mkdtempSync(join(tmpdir(), 'orc-fpath-'));
    writeFileSync(join(fpath, '_orc'), '#compdef orc\n');
    expect(
      check(JSON.parse((await doctor({ SHELL: '/usr/bin/zsh', FPATH: fpath })).stdout), 'completion'),
    ).toMatchObject({ status: 'pass' });
    expect(check(JSON.parse((await doctor({ SHELL: '/usr/bin/zsh', FPATH: '' })).stdout), 'completion')).toMatchObject({
      status: 'warn',
    });
    const fishHome = home();
    mkdirSync(join(fishHome, '.config', 'fish', 'completions'), { recursive: true });
    writeFileSync(join(fishHome, '.config', 'fish', 'completions', 'orc.fish'), '');
    expect(
      check(JSON.parse((await doctor({ SHELL: '/usr/bin/fish', HOME: fishHome })).stdout), 'completion'),
    ).toMatchObject({ status: 'pass' });
    const bin = mkdtempSync(join(tmpdir(), 'orc-bin-'));
    writeFileSync(join(bin, 'orc'), '#!/bin/sh\n', { mode: 0o755 });
    expect(check(JSON.parse((await doctor({ PATH: bin })).stdout), 'path')).toMatchObject({
      status: 'pass',
      message: `orc is on the PATH (${join(bin, 'orc')})`,
    });
  });
});
