// `orc sandbox console`: the one-time link on stdout (or { url, expires_at } under --json), the browser
// opened only at a terminal and never with --no-open or --json.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOrc as orc } from '../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

/** A $BROWSER that writes down the address it was given. */
function fakeBrowser(): { env: Record<string, string>; opened: () => string | null } {
  const dir = mkdtempSync(join(tmpdir(), 'orc-browser-'));
  const script = join(dir, 'browser');
  // Written whole, then renamed: the test never reads a half-written file.
  writeFileSync(
    script,
    `#!/bin/sh\necho "$1" > "${join(dir, 'opening')}" && mv "${join(dir, 'opening')}" "${join(dir, 'opened')}"\n`,
  );
  chmodSync(script, 0o755);
  return {
    env: { BROWSER: script, ORC_BASE_URL: sb.url },
    opened: () => (existsSync(join(dir, 'opened')) ? readFileSync(join(dir, 'opened'), 'utf8').trim() : null),
  };
}

const signInWorks = async (url: string) => (await fetch(url, { redirect: 'manual' })).status === 303;

describe('orc sandbox console', () => {
  it('--json: { url, expires_at }, a link into this sandbox that works once; no browser', async () => {
    const browser = fakeBrowser();
    const r = await orc(['sandbox', 'console', '--json'], { env: browser.env, tty: { stdout: true, stderr: true } });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(['expires_at', 'url']);
    expect(out.url.startsWith(`${sb.url}/console/login?token=`)).toBe(true);
    expect(await signInWorks(out.url)).toBe(true);
    expect(await signInWorks(out.url)).toBe(false);
    expect(browser.opened()).toBeNull();
  });

  it('at a terminal: the link on stdout, and the browser opened at it', async () => {
    const browser = fakeBrowser();
    const r = await orc(['sandbox', 'console'], { env: browser.env, tty: { stdout: true, stderr: true } });
    expect(r.exitCode, r.stderr).toBe(0);
    const url = r.stdout.trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/login\?token=[\w-]+$/);
    await until(() => browser.opened() !== null, 'the browser to be started');
    expect(browser.opened()).toBe(url);
    expect(r.stderr).toContain('opened in your browser');
  });

  it('--no-open, or no terminal: the link only', async () => {
    for (const [args, tty] of [
      [['--no-open'], { stdout: true, stderr: true }],
      [[], {}],
    ] as const) {
      const browser = fakeBrowser();
      const r = await orc(['sandbox', 'console', ...args], { env: browser.env, tty });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.trim()).toMatch(/\/console\/login\?token=/);
      expect(r.stderr).toContain('open it in a browser: it works once, within 10 minutes');
      expect(r.stderr).not.toContain('opened in your browser');
      expect(browser.opened()).toBeNull();
    }
  });
});
