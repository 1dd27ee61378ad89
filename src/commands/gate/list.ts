// `orc gate list <run>` (with no run, the inbox: inbox.ts): the three gates, their state, when decided, and the notes; under each gate its
// earlier decisions, newest first.
import type { Gate } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { orDash, relativeTime } from '../../ui/format.js';
import { printList } from '../../ui/list.js';
import type { ArgsOf } from '../define.js';
import type { list as def } from './command.js';

/** A line of the table: a gate as it stands, or (`earlier`) one of its decisions before that. */
interface Row {
  name: string;
  state: string;
  decided_at: string | null;
  notes: string | null;
  earlier: boolean;
}

export default async function list(ctx: Context, [runId]: ArgsOf<typeof def>): Promise<number> {
  if (runId === undefined) return (await import('./inbox.js')).default(ctx);
  const api = await ctx.api();
  const gates = await api.gates.list(runId);
  // --json is the gates as the service sent them, history and all; the rows are for reading
  await printList<Gate | Row>(ctx.io, {
    items: ctx.io.json ? gates : gates.flatMap(rowsOf),
    empty: `Run ${runId} has no gates.`,
    columns: [
      // at a terminal an earlier decision sits under its gate; piped, every line names its gate
      { header: 'GATE', cell: (g, tty) => (tty && (g as Row).earlier ? '' : g.name) },
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

/** The gate's row, then its earlier decisions newest first: every decision but the one the row shows. */
function rowsOf(gate: Gate): Row[] {
  const history = [...(gate.history ?? [])];
  const last = history.at(-1);
  if (last && last.decision === gate.state && last.decided_at === gate.decided_at) history.pop();
  const row = (state: string, decided_at: string | null, notes: string | null, earlier: boolean): Row => ({
    name: gate.name,
    state,
    decided_at,
    notes,
    earlier,
  });
  const earlier = history.reverse().map((h) => row(h.decision, h.decided_at, h.notes, true));
  return [row(gate.state, gate.decided_at, gate.notes, false), ...earlier];
}
