// `orc run list`: newest first; a table for people, tab-separated lines for pipes, an array under --json.
import type { Run } from '../../contract/schemas.js';
import type { Context } from '../../context.js';
import { RetoldError, UsageError } from '../../errors.js';
import { orDash, relativeTime } from '../../ui/format.js';
import { loadStyle } from '../../ui/style.js';
import { renderTable } from '../../ui/table.js';

export interface ListFlags {
  status?: string;
  limit: string;
  all?: boolean;
}

export default async function list(ctx: Context, _args: string[], flags: ListFlags): Promise<number> {
  const limit = Number(flags.limit);
  if (!/^\d+$/.test(flags.limit) || limit < 1) throw new UsageError(`--limit must be a whole number from 1 up, not ${JSON.stringify(flags.limit)}`);
  const api = await ctx.api();
  const runs: Run[] = [];
  try {
    for await (const run of api.runs.listAll({ status: flags.status, limit: flags.all ? 100 : Math.min(limit, 100) })) {
      runs.push(run);
      if (!flags.all && runs.length >= limit) break;
    }
  } catch (err) {
    const e = err as { field?: string; message: string; exitCode: number; hint?: string };
    if (e.field === 'status') throw new RetoldError(`--status: ${e.message}`, e.exitCode, e.hint);
    throw err;
  }
  if (ctx.io.json) {
    ctx.io.writeJson(runs);
    return 0;
  }
  if (runs.length === 0) {
    ctx.io.info(flags.status ? `No runs with status ${flags.status}.` : 'No runs yet. Create one with `orc run create`.');
    return 0;
  }
  const tty = ctx.io.stdoutIsTTY;
  const style = await loadStyle(ctx.io);
  const rows = runs.map((r) => [r.id, r.status, r.stage, orDash(r.gate_pending), tty ? relativeTime(r.created_at) : r.created_at]);
  const lines = renderTable(
    [{ header: 'ID' }, { header: 'STATUS' }, { header: 'STAGE', flexible: true }, { header: 'GATE' }, { header: 'CREATED', flexible: true }],
    rows,
    { tty, width: ctx.io.columns, paint: (_r, c, text) => (c === 1 ? style.status(text) : text) },
  );
  for (const line of lines) ctx.io.out(line);
  return 0;
}
