// `orc webhook redeliver <id> <delivery>`: queued again, its retries starting afresh.
import type { Context } from '../context.js';
import { oneLine } from '../../lib/sanitize.js';
import type { ArgsOf } from '../define.js';
import type { redeliver as def } from './command.js';

export default async function redeliver(ctx: Context, [id, deliveryId]: ArgsOf<typeof def>): Promise<number> {
  const api = await ctx.api();
  const d = await api.webhooks.redeliver(id, deliveryId);
  if (ctx.io.json) return (ctx.io.writeJson(d), 0);
  ctx.io.info(
    `✓ delivery ${oneLine(d.id)} (${oneLine(d.event_type)}) queued again; \`orc webhook deliveries ${id}\` shows how it goes`,
  );
  return 0;
}
