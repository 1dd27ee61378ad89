// One sandbox per data folder. The lock is an OS-level one, taken atomically: `sandbox.lock.db` is a small
// SQLite database held in EXCLUSIVE locking mode (SQLite's fcntl lock on the file), which the kernel drops
// the moment its owner dies, however it dies. So there is no stale lock to judge, and no read-check-delete
// for two starting sandboxes to race through (3 of 30 both ran when a dead pid's lock file was taken over).
// The owner's pid, for the message, is written beside it in `sandbox.pid` once the lock is held. The lock
// file of an earlier orc (`sandbox.lock`, a pid as text) is only read: a live owner there still holds the
// folder; a dead one's file is left, and decides nothing.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { dirname, join } from 'node:path';
import { isAlive } from '../lib/pid.js';
import { privateFile } from './store.js';

/** Lock files this process holds: a second sandbox in the same process is refused too. */
const held = new Set<string>();

export interface FolderLock {
  release(): void;
}

const locked = (dir: string, pid: number | null) =>
  Object.assign(new Error(`the data folder ${dir} is in use by another sandbox${pid ? ` (pid ${pid})` : ''}`), {
    code: 'ERR_SANDBOX_LOCKED',
    pid,
  });

export function lockDataFolder(dataPath: string): FolderLock {
  const dir = dirname(dataPath);
  // The folder holds secrets: made 0700 when it is made here.
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'sandbox.lock.db');
  const pidFile = join(dir, 'sandbox.pid');
  if (held.has(file)) throw locked(dir, process.pid);
  const legacy = readPid(join(dir, 'sandbox.lock'));
  if (legacy !== null && legacy !== process.pid && isAlive(legacy)) throw locked(dir, legacy);
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
  privateFile(file); // (its journal takes its mode)
  const db: DatabaseSync = new DatabaseSync(file, { timeout: 0 });
  try {
    // BEGIN EXCLUSIVE takes the write lock at once or fails (SQLITE_BUSY); EXCLUSIVE locking mode keeps it
    // after the COMMIT, for as long as this connection is open.
    db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;');
  } catch (err) {
    db.close();
    const code = (err as { errcode?: number }).errcode;
    if (code === 5 || code === 6) throw locked(dir, ownerPid(pidFile)); // SQLITE_BUSY, SQLITE_LOCKED
    throw err;
  }
  privateFile(pidFile);
  writeFileSync(pidFile, `${process.pid}\n`);
  held.add(file);
  return {
    release: () => {
      if (!held.delete(file)) return;
      if (readPid(pidFile) === process.pid) rmSync(pidFile, { force: true });
      db.close();
    },
  };
}

/** The holder's pid: written a moment after it took the lock, so a sandbox that lost a race waits up to 1 s for it. */
function ownerPid(pidFile: string): number | null {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 50; i++) {
    const pid = readPid(pidFile);
    if (pid !== null && isAlive(pid)) return pid;
    Atomics.wait(pause, 0, 0, 20);
  }
  return null;
}

function readPid(file: string): number | null {
  try {
    const n = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}
