// `orc webhook list`: every webhook, across pages; never a secret.
import type { Webhook } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { relativeTime } from '../../ui/format.js';
import { printList } from '../../ui/list.js';

export default async function list(ctx: Context): Promise<number> {
  const api = await ctx.api();
  const items: Webhook[] = [];
  for await (const w of api.webhooks.listAll()) items.push(w);
  await printList<Webhook>(ctx.io, {
    items,
    empty: 'No webhooks. Add one with `orc webhook add --url … --events …`, or try `orc webhook listen`.',
    columns: [
      { header: 'ID', cell: (w) => w.id },
      { header: 'URL', flexible: true, cell: (w) => w.url },
      { header: 'EVENTS', cell: (w) => w.events.join(',') },
      { header: 'STATUS', cell: (w) => w.status, status: true },
      { header: 'CREATED', cell: (w, tty) => (tty ? relativeTime(w.created_at, ctx.clock.now()) : w.created_at) },
    ],
  });
  return 0;
}
