// `orc sandbox reset`: an empty sandbox (runs, webhooks, deliveries, faults), the key and knobs kept.
import type { FlagsOf } from '../define.js';
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../../exit/errors.js';
import type { ResetDone } from '../../contract/sandbox-control.js';
import { adminCall } from './admin-call.js';
import type { reset as def } from './command.js';

export default async function reset(ctx: Context, _args: [], flags: FlagsOf<typeof def>): Promise<number> {
  if (!flags.yes) {
    if (!ctx.io.canPrompt) throw new UsageError('reset empties the sandbox: it needs --yes when no one can be asked');
    if (!(await (await ctx.prompter()).confirm('Empty the sandbox (every run, webhook, delivery and fault)?', false)))
      throw new InterruptedError('not reset');
  }
  const out = await adminCall<ResetDone>(ctx, 'POST', '/_sandbox/reset');
  if (ctx.io.json) ctx.io.writeJson(out);
  else ctx.io.info('the sandbox is empty: no runs, webhooks, deliveries or faults');
  return 0;
}
