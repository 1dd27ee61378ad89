// --on-gate-exec: the user's own one-line command run for each gate that opens (the bridge to a chat, a pager,
// a phone), the event as JSON on its stdin and in its environment; bounded, its failures said, never fatal.
import { spawn } from 'node:child_process';
import type { Clock } from '../../lib/clock.js';
import { sanitizeLine } from '../../lib/sanitize.js';

export interface GateEvent {
  run_id: string;
  gate: string;
  name?: string;
  opened_at: string;
  hint: string;
}

/**
 * Runs `command` through /bin/sh (it is the user's own line, pipes and all) in a process group of its own, so
 * a hang is killed whole when the bound runs out. Resolves with why it failed, or null; never rejects.
 */
export function runGateHook(
  command: string,
  event: GateEvent,
  opts: { env: NodeJS.ProcessEnv; clock: Clock; timeoutMs: number },
): Promise<string | null> {
  const env = { ...opts.env, ORC_RUN_ID: event.run_id, ORC_GATE: event.gate, ORC_HINT: event.hint };
  return new Promise((done) => {
    const child = spawn('/bin/sh', ['-c', command], { env, detached: true, stdio: ['pipe', 'ignore', 'pipe'] });
    let said = '';
    let timedOut = false;
    child.stderr.on('data', (chunk: Buffer) => {
      said = (said + chunk.toString('utf8')).slice(-500);
    });
    const cancel = opts.clock.timer(opts.timeoutMs, () => {
      timedOut = true;
      killGroup(child.pid);
    });
    child.on('error', (err) => {
      cancel();
      done(err.message);
    });
    // On its exit, not when its pipes close: a process it left in the background (`setsid … &`) may hold stderr
    // open for ever, and is its own business. What it said up to then is read for a short moment more.
    child.on('exit', (code, signal) => {
      cancel();
      const grace = setTimeout(() => child.stderr.destroy(), 100);
      grace.unref();
      const closed = () => {
        clearTimeout(grace);
        settle(code, signal);
      };
      if (child.stderr.closed) closed();
      else child.stderr.once('close', closed);
    });
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      const last = sanitizeLine(said.trim().split('\n').pop() ?? '').slice(0, 200);
      const why = timedOut
        ? `still running after ${opts.timeoutMs / 1000} s, killed`
        : signal
          ? `killed by ${signal}`
          : code !== 0
            ? `exit ${code}`
            : null;
      done(why && last ? `${why}: ${last}` : why);
    };
    // A hook that never reads its stdin closes it early: that is its business, not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(`${JSON.stringify(event)}\n`);
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
