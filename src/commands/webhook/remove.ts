// `orc webhook remove <id>`: asks first at a terminal; without one it needs --yes, as removing is for good.
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { remove as def } from './command.js';

export default async function remove(
  ctx: Context,
  [id]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const api = await ctx.api();
  if (!flags.yes) {
    if (!ctx.io.canPrompt)
      throw new UsageError(
        `removing webhook ${id} needs --yes when no one can be asked`,
        `orc webhook remove ${id} --yes`,
      );
    const w = await api.webhooks.retrieve(id);
    const sure = await (await ctx.prompter()).confirm(
      `Remove webhook ${id} (${oneLine(w.url)})? Its deliveries stop at once.`,
      false,
    );
    if (!sure) throw new InterruptedError(`not removed: ${id} stays`);
  }
  const gone = await api.webhooks.remove(id);
  if (ctx.io.json) return (ctx.io.writeJson(gone), 0);
  ctx.io.info(`✓ removed webhook ${id}`);
  return 0;
}
