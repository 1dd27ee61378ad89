// `orc run get <id>`: one run.
import type { Context } from '../context.js';
import type { ArgsOf } from '../define.js';
import type { get as def } from './command.js';
import { printRun } from './show.js';

export default async function get(ctx: Context, [id]: ArgsOf<typeof def>): Promise<number> {
  const api = await ctx.api();
  await printRun(ctx, await api.runs.retrieve(id));
  return 0;
}
