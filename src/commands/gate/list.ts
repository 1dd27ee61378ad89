// `orc gate list <run>`: the three gates, their state, when decided, and the notes.
import type { Gate } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { orDash, relativeTime } from '../../ui/format.js';
import { printList } from '../../ui/list.js';
import type { ArgsOf } from '../define.js';
import type { list as def } from './command.js';

export default async function list(ctx: Context, [runId]: ArgsOf<typeof def>): Promise<number> {
  const api = await ctx.api();
  await printList<Gate>(ctx.io, {
    items: await api.gates.list(runId),
    empty: `Run ${runId} has no gates.`,
    columns: [
      { header: 'GATE', cell: (g) => g.name },
      { header: 'STATE', cell: (g) => g.state, status: true },
      {
        header: 'DECIDED',
        cell: (g, tty) => (g.decided_at ? (tty ? relativeTime(g.decided_at, ctx.clock.now()) : g.decided_at) : '—'),
      },
      { header: 'NOTES', flexible: true, cell: (g) => orDash(g.notes) },
    ],
  });
  return 0;
}
