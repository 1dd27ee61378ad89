// `orc gate list <run>`: the three gates, their state, when decided, and the notes.
import type { Context } from '../../context.js';
import { orDash, relativeTime } from '../../ui/format.js';
import { loadStyle } from '../../ui/style.js';
import { renderTable } from '../../ui/table.js';

export default async function list(ctx: Context, [runId]: string[]): Promise<number> {
  const api = await ctx.api();
  const gates = await api.gates.list(runId!);
  if (ctx.io.json) {
    ctx.io.writeJson(gates);
    return 0;
  }
  const tty = ctx.io.stdoutIsTTY;
  const style = await loadStyle(ctx.io);
  const rows = gates.map((g) => [g.name, g.state, g.decided_at ? (tty ? relativeTime(g.decided_at) : g.decided_at) : '—', orDash(g.notes)]);
  for (const line of renderTable([{ header: 'GATE' }, { header: 'STATE' }, { header: 'DECIDED' }, { header: 'NOTES', flexible: true }], rows, { tty, width: ctx.io.columns, paint: (_r, c, t) => (c === 1 ? style.status(t) : t) }))
    ctx.io.out(line);
  return 0;
}
