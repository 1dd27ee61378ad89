// `orc sandbox status`: is a sandbox started from this config folder running, and where.
import type { Context } from '../../context.js';
import { EXIT } from '../../errors.js';
import { liveSandbox } from './state.js';

export default async function status(ctx: Context): Promise<number> {
  const state = await liveSandbox(ctx.configDir);
  if (ctx.io.json) ctx.io.writeJson(state ? { running: true, ...state } : { running: false });
  else if (state) ctx.io.out(`running\t${state.url}\tpid ${state.pid}\tsince ${state.started_at}\t${state.data}`);
  else ctx.io.out('not running');
  return state ? EXIT.ok : EXIT.failure;
}
