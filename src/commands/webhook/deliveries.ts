// `orc webhook deliveries <id> [--status …]`: each delivery's event, state, attempts, last answer and next try.
import type { Delivery } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { relativeTime } from '../../ui/format.js';
import { printList } from '../../ui/list.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { deliveries as def } from './command.js';

export default async function deliveries(
  ctx: Context,
  [id]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const api = await ctx.api();
  const items: Delivery[] = [];
  for await (const d of api.webhooks.deliveries(id)) if (!flags.status || d.status === flags.status) items.push(d);
  const when = (iso: string | null, tty: boolean) =>
    iso === null ? '—' : tty ? relativeTime(iso, ctx.clock.now()) : iso;
  await printList<Delivery>(ctx.io, {
    items,
    empty: flags.status ? `Webhook ${id} has no ${flags.status} deliveries.` : `Webhook ${id} has no deliveries yet.`,
    columns: [
      { header: 'ID', cell: (d) => d.id },
      { header: 'EVENT', cell: (d) => d.event_type },
      { header: 'EVENT ID', cell: (d) => d.event_id },
      { header: 'STATUS', cell: (d) => d.status, status: true },
      { header: 'ATTEMPTS', cell: (d) => String(d.attempts) },
      { header: 'LAST CODE', cell: (d) => (d.last_status_code === null ? '—' : String(d.last_status_code)) },
      { header: 'NEXT ATTEMPT', cell: (d, tty) => when(d.next_attempt_at, tty) },
      { header: 'CREATED', cell: (d, tty) => when(d.created_at, tty) },
    ],
  });
  return 0;
}
