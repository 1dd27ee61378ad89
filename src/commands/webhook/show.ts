// A webhook for people: one field a line (its text came sanitised from the JSON body layer); the secret only when
// the service has just made it.
import type { Webhook } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { relativeTime } from '../../ui/format.js';
import { oneLine } from '../../lib/sanitize.js';
import { loadStyle } from '../../ui/style.js';

export async function printWebhook(ctx: Context, w: Webhook): Promise<void> {
  const style = await loadStyle(ctx.io);
  const s = (v: unknown) => oneLine(String(v ?? '—'));
  const when =
    ctx.io.stdoutIsTTY && !Number.isNaN(Date.parse(w.created_at))
      ? `${s(w.created_at)} (${relativeTime(w.created_at, ctx.clock.now())})`
      : s(w.created_at);
  const rows: Array<[string, string]> = [
    ['id', style.bold(s(w.id))],
    ['url', s(w.url)],
    ['events', w.events.map(s).join(', ')],
    ['status', style.status(s(w.status))],
    ['created', when],
  ];
  for (const [k, v] of rows) ctx.io.out(`${k.padEnd(8)} ${v}`);
}
