// Runs the built orc as a user would: a real process, a fresh config folder, no mocks.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { SANDBOX_DEFAULT_KEY } from '../../src/contract/keys.js';

export const ORC_BIN = resolve(import.meta.dirname, '../../bin/orc.js');

export function freshConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'orc-config-'));
}

export interface OrcOptions {
  configDir?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeout?: number;
}

/** The machine's proxy settings stay out of the tests: a test that wants a proxy sets one. */
export const NO_PROXIES = {
  http_proxy: undefined,
  HTTP_PROXY: undefined,
  https_proxy: undefined,
  HTTPS_PROXY: undefined,
  no_proxy: undefined,
  NO_PROXY: undefined,
};

/** The key of the sandboxes the tests start (a sandbox given none makes its own, sandboxKey): the one the
 * tests' own requests send (test/helpers/sandbox.ts KEY). A test of a sandbox's own key unsets it. */
export const TEST_SANDBOX_KEY = { ORC_SANDBOX_API_KEY: SANDBOX_DEFAULT_KEY };

/** `orc …` with the Node that runs the tests, a given config folder, and no inherited ORC_* settings. */
export function orc(args: string[], o: OrcOptions = {}) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...NO_PROXIES,
    ORC_API_KEY: undefined,
    ORC_PROFILE: undefined,
    ORC_BASE_URL: undefined,
    NO_COLOR: undefined,
    ...TEST_SANDBOX_KEY,
    ORC_CONFIG_DIR: o.configDir ?? freshConfigDir(),
    ...o.env,
  };
  // stdin is always a closed pipe (or the given input), as in CI: orc must never wait on it.
  return execa(process.execPath, [ORC_BIN, ...args], {
    env,
    extendEnv: false,
    reject: false,
    timeout: o.timeout ?? 60_000,
    input: o.input ?? '',
  });
}
export type OrcProcess = ReturnType<typeof orc>;

/** Starts `orc sandbox start …` and resolves once it prints its URL. */
export async function startSandboxProcess(
  args: string[],
  o: OrcOptions = {},
): Promise<{ url: string; proc: OrcProcess }> {
  const proc = orc(['sandbox', 'start', ...args], { timeout: 120_000, ...o });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) resolveUrl(m[1]!);
    });
    proc.then((r) => reject(new Error(`sandbox exited ${r.exitCode}: ${r.stderr}`)), reject);
  });
  return { url, proc };
}
