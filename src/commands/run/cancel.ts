// `orc run cancel <id>`: asks first when it is a live run and someone is there to ask.
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../../exit/errors.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { cancel as def } from './command.js';
import { printRun } from './show.js';

export default async function cancel(
  ctx: Context,
  [id]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const target = await ctx.target();
  if (target.mode === 'live' && !flags.yes) {
    if (!ctx.io.canPrompt) throw new UsageError(`canceling live run ${id} needs --yes when no one can be asked`);
    const sure = await (await ctx.prompter()).confirm(`Cancel live run ${id}? It cannot be resumed.`, false);
    if (!sure) throw new InterruptedError(`not canceled: ${id} goes on`);
  }
  const api = await ctx.api();
  const run = await api.runs.cancel(id);
  await printRun(ctx, run);
  return 0;
}
