// Whether a process still runs (a lock's owner, the background sandbox, a listener): signal 0 asks
// without sending anything; EPERM means it runs as someone else.
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
