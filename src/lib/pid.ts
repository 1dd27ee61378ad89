// Whether a process still runs (a lock's owner, the background sandbox, a listener): signal 0 asks
// without sending anything; EPERM means it runs as someone else.
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A process that has exited but not been reaped yet answers signal 0 too. A background sandbox's parent
 * is gone, so init reaps it, in its own time (a second or two on some machines): until then it is not
 * running, whatever kill(0) says. Linux tells by /proc; elsewhere there is no cheap way, and no such wait.
 */
function isZombie(pid: number): boolean {
  try {
    const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/**
 * When a process started, as the system tells it (Linux: /proc/<pid>/stat, in clock ticks since boot;
 * elsewhere `ps -o lstart=`): with its pid it names one process for good, since a pid is reused once its
 * process is gone. Null when it cannot be told.
 */
export function processStartTime(pid: number): string | null {
  const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    if (process.platform === 'linux') return null;
  }
  try {
    const cp = process.getBuiltinModule('node:child_process') as typeof import('node:child_process');
    const out = cp
      .execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 2000,
      })
      .trim();
    return out || null;
  } catch {
    return null;
  }
}
