// How a run looks to a person: one field a line, values from the service sanitised.
import type { Run } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { orDash, relativeTime } from '../../ui/format.js';
import { oneLine } from '../../lib/sanitize.js';
import { loadStyle } from '../../ui/style.js';

/** `name`: the run's name (src/api/run-names.ts) where the caller read it; a line of its own when there is one. */
export async function printRun(ctx: Context, run: Run, name?: string | null): Promise<void> {
  if (ctx.io.json) return ctx.io.writeJson(run);
  const style = await loadStyle(ctx.io);
  const s = (v: unknown) => oneLine(orDash(v as string | null | undefined));
  // At a terminal the time and how long ago; piped, the ISO time alone (as `run list` prints it).
  const when = (iso: string) =>
    ctx.io.stdoutIsTTY && !Number.isNaN(Date.parse(iso)) ? `${s(iso)} (${relativeTime(iso, ctx.clock.now())})` : s(iso);
  const rows: Array<[string, string]> = [
    ['id', style.bold(s(run.id))],
    ...(name ? [['name', oneLine(name)] as [string, string]] : []),
    ['status', style.status(s(run.status))],
    ['stage', s(run.stage)],
    ['gate', run.gate_pending ? style.yellow(`${s(run.gate_pending)} (awaiting a decision)`) : '—'],
    ['mode', s(run.mode)],
    ['app id', s(run.app_id)],
    ['created', when(run.created_at)],
  ];
  if (run.updated_at) rows.push(['updated', when(run.updated_at)]);
  for (const [k, v] of rows) ctx.io.out(`${k.padEnd(8)} ${v}`);
}
