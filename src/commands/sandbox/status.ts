// `orc sandbox status`: is a sandbox started from this config folder running, and where.
import type { Context } from '../context.js';
import { redactKey } from '../../contract/keys.js';
import { EXIT } from '../../exit/errors.js';
import { liveSandbox } from '../../config/sandbox-state.js';

export default async function status(ctx: Context): Promise<number> {
  const state = await liveSandbox(ctx.configDir);
  // The record holds the sandbox's test key; status shows it only redacted.
  const shown = state
    ? { running: true, ...state, api_key: state.api_key ? redactKey(state.api_key) : undefined }
    : { running: false };
  if (ctx.io.json) ctx.io.writeJson(shown);
  else if (state) ctx.io.out(`running\t${state.url}\tpid ${state.pid}\tsince ${state.started_at}\t${state.data}`);
  else ctx.io.out('not running');
  return state ? EXIT.ok : EXIT.failure;
}
