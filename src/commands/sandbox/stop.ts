// `orc sandbox stop`: ends the sandbox recorded in this config folder, gracefully, then for sure.
import type { Context } from '../context.js';
import { EnvironmentError } from '../../exit/errors.js';
import { isRecordedSandbox, readState, removeState } from '../../config/sandbox-state.js';
import { isAlive } from '../../lib/pid.js';

export default async function stop(ctx: Context): Promise<number> {
  const state = readState(ctx.configDir);
  if (!state || !isAlive(state.pid)) {
    if (state) removeState(ctx.configDir, state.pid);
    if (ctx.io.json) ctx.io.writeJson({ stopped: false, running: false });
    ctx.io.info('no sandbox is running');
    return 0;
  }
  // Only a process proven to be that sandbox is signalled: after a kill -9 its pid may be anyone's now.
  if (!(await isRecordedSandbox(state))) {
    removeState(ctx.configDir, state.pid);
    if (ctx.io.json) ctx.io.writeJson({ stopped: false, running: false, stale: true, pid: state.pid });
    ctx.io.info(
      `no sandbox is running: the record named pid ${state.pid}, which is now another process (left alone); the stale record was removed`,
    );
    return 0;
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (isAlive(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(state.pid)) {
    process.kill(state.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    if (isAlive(state.pid)) throw new EnvironmentError(`could not stop the sandbox (pid ${state.pid})`);
  }
  removeState(ctx.configDir, state.pid);
  if (ctx.io.json) ctx.io.writeJson({ stopped: true, pid: state.pid, url: state.url });
  ctx.io.info(`stopped the sandbox at ${state.url} (pid ${state.pid})`);
  return 0;
}
