// `orc webhook get <id>`: one webhook; the service never shows its secret again.
import type { Context } from '../context.js';
import type { ArgsOf } from '../define.js';
import type { get as def } from './command.js';
import { printWebhook } from './show.js';

export default async function get(ctx: Context, [id]: ArgsOf<typeof def>): Promise<number> {
  const api = await ctx.api();
  const w = await api.webhooks.retrieve(id);
  if (ctx.io.json) return (ctx.io.writeJson(w), 0);
  await printWebhook(ctx, w);
  return 0;
}
