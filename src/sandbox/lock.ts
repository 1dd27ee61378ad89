// One sandbox per data folder: a lock file holding the owner's pid, made with O_EXCL so two starting at
// once cannot both win; a lock left by a process that no longer runs is taken over.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isAlive as alive } from '../pid.js';

/** Lock files this process holds: a second sandbox in the same process is refused too. */
const held = new Set<string>();

export interface FolderLock {
  release(): void;
}

export function lockDataFolder(dataPath: string): FolderLock {
  const dir = dirname(dataPath);
  // The folder holds secrets: made 0700 when it is made here.
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'sandbox.lock');
  for (let tries = 0; tries < 3; tries++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      held.add(file);
      return {
        release: () => {
          if (!held.delete(file)) return;
          if (readPid(file) === process.pid) rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = readPid(file);
      if (held.has(file) || (pid !== null && pid !== process.pid && alive(pid)))
        throw Object.assign(new Error(`the data folder ${dirname(dataPath)} is in use by another sandbox (pid ${held.has(file) ? process.pid : pid})`), { code: 'ERR_SANDBOX_LOCKED', pid });
      rmSync(file, { force: true }); // stale: its owner is gone
    }
  }
  throw Object.assign(new Error(`could not lock the data folder ${dirname(dataPath)}`), { code: 'ERR_SANDBOX_LOCKED' });
}

function readPid(file: string): number | null {
  try {
    const n = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}
