// Where the built-in `sandbox` profile looks when no sandbox is recorded, and starts one when nothing
// answers there (its key: its data folder's own, sandbox-state.ts): 127.0.0.1, port ORC_SANDBOX_PORT or 4010.
import { KNOBS } from '../contract/sandbox-knobs.js';
import { ConfigError } from '../exit/errors.js';

export const DEFAULT_SANDBOX_PORT = KNOBS.port.default;

export function defaultSandboxPort(env: NodeJS.ProcessEnv): number {
  const raw = env.ORC_SANDBOX_PORT;
  if (raw === undefined || raw === '') return DEFAULT_SANDBOX_PORT;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > 65535)
    throw new ConfigError(`ORC_SANDBOX_PORT must be a port from 1 to 65535, not ${JSON.stringify(raw)}`);
  return n;
}

export function defaultSandboxUrl(env: NodeJS.ProcessEnv): string {
  return `http://127.0.0.1:${defaultSandboxPort(env)}`;
}
