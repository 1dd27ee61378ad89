// A steered sandbox for the sandbox-control tests: a real `orc sandbox start --clock manual` process (1 h
// stages, quick webhook retries), plain HTTP to it with its key, and `orc sandbox …` pointed at it.
import { afterAll, beforeAll } from 'vitest';
import { freshConfigDir, orc, startSandboxProcess, type OrcProcess } from './cli.js';
import { KEY } from './sandbox.js';

export const http = async (url: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

export const idea = (pitch: string) => ({ mode: 'idea', idea: { pitch, audience: 'testers', monetization: 'free' } });

/** Starts the steered sandbox before the file's tests and stops it after; `url` is set once it listens. */
export function manualSandbox(): {
  readonly url: string;
  ctl: (args: string[], env?: Record<string, string>) => ReturnType<typeof orc>;
} {
  let sandbox: { url: string; proc: OrcProcess } | undefined;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(
      ['--port', '0', '--memory', '--clock', 'manual', '--stage-ms', '1h', '--retry-base-ms', '10'],
      { configDir: freshConfigDir() },
    );
  });
  afterAll(async () => {
    sandbox?.proc.kill('SIGTERM');
    await sandbox?.proc;
  });
  return {
    get url() {
      return sandbox!.url;
    },
    ctl: (args, env = {}) => orc(['sandbox', ...args], { env: { ORC_BASE_URL: sandbox!.url, ...env } }),
  };
}
