// The one way orc writes a file of its own in the config folder (config.json, sandbox.json): whole or
// not at all, mode 0600 in a 0700 folder. conf does the atomic write (temp file, fsync, rename); it is
// loaded only when something is written, never to read.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../exit/errors.js';
import { isAlive } from '../lib/pid.js';

let loading: Promise<typeof import('conf').default> | undefined;

/**
 * conf's writer (atomically, through when-exit) hooks every signal when it loads and re-raises it after
 * its clean-up, so a process that handles SIGTERM itself (the sandbox, finishing in-flight work) would be
 * killed halfway. Its signal hooks are taken off again; its 'exit' hook, which removes temp files, stays.
 */
function loadConf(): Promise<typeof import('conf').default> {
  loading ??= (async () => {
    const signals = Object.keys(constants.signals) as NodeJS.Signals[];
    const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
    const { default: Conf } = await import('conf');
    for (const s of signals)
      for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.removeListener(s, l as () => void);
    return Conf;
  })();
  return loading;
}

export async function writeJsonFile(dir: string, name: string, value: object): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const Conf = await loadConf();
  // A record that no longer parses is replaced, not read: what is written next is the whole of it.
  const file = new Conf<Record<string, unknown>>({
    cwd: dir,
    configName: name,
    projectName: 'orc',
    configFileMode: 0o600,
    clearInvalidConfig: true,
  });
  file.store = value as Record<string, unknown>;
}

/** How long a writer waits for another orc process to finish its change of the same file. */
const LOCK_WAIT_MS = 10_000;

/**
 * Runs `change` (a read, a change, a write of `<dir>/<name>.json`) holding `<dir>/<name>.lock`, so that
 * orc processes changing one file at once (ten `orc profile add` in a script) each keep their change: the
 * atomic write alone made the last writer win over changes it had not read. The lock file holds the
 * holder's pid; one left by a process that is gone (killed mid-write) is taken over.
 */
export async function withFileLock<T>(dir: string, name: string, change: () => Promise<T>): Promise<T> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = join(dir, `${name}.lock`);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let pause = 2; !takeLock(lock); pause = Math.min(pause * 2, 50)) {
    if (Date.now() > deadline) {
      throw new ConfigError(
        `${lock} is held by process ${holderOf(lock) ?? '?'}: another orc is changing ${name}.json`,
        `Wait for it to finish, or remove ${lock} if no orc is running.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  try {
    return await change();
  } finally {
    rmSync(lock, { force: true });
  }
}

function takeLock(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const seen = statSync(lock, { throwIfNoEntry: false });
  if (!seen) return false;
  const holder = holderOf(lock);
  // A lock with no pid yet is being written by its holder this instant (wait, as for a live one), unless it
  // has stayed empty for seconds (its holder died between making and writing it).
  const stale = holder === null ? Date.now() - seen.mtimeMs > 5_000 : holder !== process.pid && !isAlive(holder);
  // Removed only if it is still the file judged stale: another orc may have taken it over meanwhile.
  if (stale && statSync(lock, { throwIfNoEntry: false })?.ino === seen.ino) rmSync(lock, { force: true });
  return false;
}

function holderOf(lock: string): number | null {
  try {
    const pid = Number(readFileSync(lock, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
