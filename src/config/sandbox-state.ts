// The record of a sandbox started from this config folder (sandbox.json), and how to tell if it still runs.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, processStartTime } from '../lib/pid.js';

export interface SandboxState {
  pid: number;
  url: string;
  data: string;
  log: string | null;
  started_at: string;
  detached: boolean;
  /** The test key it accepts (the file is 0600 in a 0700 folder). */
  api_key?: string;
  /** When its process started (src/lib/pid.ts): with the pid, proof that a process is this sandbox. */
  pid_started?: string | null;
  /** With --tls: the CA that signed its certificate, which orc trusts for this sandbox. */
  ca_file?: string;
}

export const statePath = (configDir: string) => join(configDir, 'sandbox.json');

const TEST_KEY = /^sk_test_[A-Za-z0-9_]{4,}$/;

export function isTestKey(key: string): boolean {
  return TEST_KEY.test(key);
}

/** A new random test key. */
export function newTestKey(): string {
  return `sk_test_${randomBytes(16).toString('hex')}`;
}

/**
 * The key of a sandbox started without one: a data folder's own, made at its first start (or when orc
 * first needs it to talk to the sandbox it would start) and kept in it (`sandbox.key`, 0600 in the 0700
 * folder), so every start of that folder takes the same; in memory, a new one each time. orc reads it from
 * the sandbox's record (sandbox.json), as it reads the port: another user of the machine cannot guess it,
 * as they could the one key every sandbox once shared.
 */
export function sandboxKey(dataDir: string | null): string {
  if (!dataDir) return newTestKey();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'sandbox.key');
  for (;;) {
    try {
      const key = readFileSync(file, 'utf8').trim();
      const bad = `${file} does not hold a test key (sk_test_…): remove it, and the sandbox makes a new one`;
      if (!isTestKey(key)) throw Object.assign(new Error(bad), { code: 'ERR_SANDBOX_KEY' });
      chmodSync(file, 0o600);
      return key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    try {
      // (exclusively: of two at once, one key wins, and the other reads it)
      const key = newTestKey();
      writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
      return key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** The key of the sandbox orc starts by itself when nothing answers (`sandbox start` with the config
 * folder's data folder and no flags), so a command talks to it with the right key from its first request. */
export function autoStartedSandboxKey(configDir: string, env: NodeJS.ProcessEnv): string {
  return env.ORC_SANDBOX_API_KEY ?? sandboxKey(join(configDir, 'sandbox'));
}
export const logPath = (configDir: string) => join(configDir, 'sandbox.log');

export function readState(configDir: string): SandboxState | null {
  try {
    const s = JSON.parse(readFileSync(statePath(configDir), 'utf8')) as SandboxState;
    return typeof s.pid === 'number' && typeof s.url === 'string' ? s : null;
  } catch {
    return null;
  }
}

/** Written whole or not at all, by the writer config.json uses. */
export async function writeState(configDir: string, state: SandboxState): Promise<void> {
  const { writeJsonFile } = await import('./json-file.js');
  await writeJsonFile(configDir, 'sandbox', state);
}

export function removeState(configDir: string, pid: number): void {
  if (readState(configDir)?.pid === pid) rmSync(statePath(configDir), { force: true });
}

/**
 * Is the recorded process still that sandbox? A pid alone is not proof: after a kill -9 the pid may be
 * another program's. Proof is the recorded start time, or else the sandbox at the recorded address saying
 * it runs as that pid.
 */
export async function isRecordedSandbox(state: SandboxState): Promise<boolean> {
  if (!isAlive(state.pid)) return false;
  const now = processStartTime(state.pid);
  if (state.pid_started && now) return now === state.pid_started;
  return (await healthz(state.url, 1500, state.ca_file))?.pid === state.pid;
}

/** The running sandbox recorded here, or null (a stale record is removed). */
export async function liveSandbox(configDir: string): Promise<SandboxState | null> {
  const state = readState(configDir);
  if (!state) return null;
  if (isAlive(state.pid) && (await answers(state.url, 1500, state.ca_file))) return state;
  if (!isAlive(state.pid)) rmSync(statePath(configDir), { force: true });
  return null;
}

export async function answers(url: string, timeoutMs = 1500, caFile?: string): Promise<boolean> {
  return (await healthz(url, timeoutMs, caFile)) !== null;
}

/**
 * What the sandbox at `url` says of itself on /healthz ({ ok, version, pid }), or null if nothing answers
 * so within `timeoutMs`. Asked through the client's one exchange (src/api/http.ts): keyless, once (no retry),
 * no redirect followed (whatever a program at the address points to is not the sandbox), never through a proxy; over https its CA (the one --tls made) trusted besides the system's, as by every
 * request to that sandbox.
 */
export async function healthz(url: string, timeoutMs: number, caFile?: string): Promise<{ pid?: unknown } | null> {
  const [{ HttpClient, readText }, { VERSION }] = await Promise.all([
    import('../api/http.js'),
    import('../lib/version.js'),
  ]);
  const http = new HttpClient({
    baseUrl: url,
    apiKey: '',
    userAgent: `orc/${VERSION} node/${process.versions.node}`,
    connectTimeoutMs: timeoutMs,
    attemptTimeoutMs: timeoutMs,
    ...(caFile ? { caFile } : {}),
  });
  try {
    return await http.exchange(
      {
        method: 'GET',
        target: new URL('/healthz', url).href,
        auth: false,
        retries: 0,
        redirects: false, // a redirect is another program answering, not the sandbox
        deadline: false,
        bodyTimeoutMs: 0,
        signal: AbortSignal.timeout(timeoutMs),
      },
      async (answer) =>
        answer.status === 200
          ? ((JSON.parse(await readText(answer.body, HEALTHZ_MAX_BYTES)) as { pid?: unknown }) ?? {})
          : null,
    );
  } catch {
    return null;
  } finally {
    await http.close();
  }
}

/** What a sandbox says on /healthz is a few dozen bytes: a longer answer is not one. */
const HEALTHZ_MAX_BYTES = 65_536;
