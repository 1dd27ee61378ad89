// `orc profile list`: every profile, the built-in sandbox one included; keys redacted.
import { readConfig } from '../../config/profiles.js';
import type { Context } from '../context.js';
import { orDash } from '../../ui/format.js';
import { renderTable } from '../../ui/table.js';
import { profileViews } from './view.js';

export default async function list(ctx: Context): Promise<number> {
  const views = await profileViews(readConfig(ctx.configDir), false, ctx.configDir, ctx.env);
  if (ctx.io.json) {
    ctx.io.writeJson(views);
    return 0;
  }
  const rows = views.map((v) => [
    `${v.active ? '* ' : '  '}${v.name}`,
    v.base_url,
    orDash(v.test_key),
    v.live_key ? `${v.live_key} (${v.live_key_in})` : '—',
  ]);
  for (const line of renderTable(
    [{ header: '  NAME' }, { header: 'BASE URL', flexible: true }, { header: 'TEST KEY' }, { header: 'LIVE KEY' }],
    rows,
    { tty: ctx.io.stdoutIsTTY, width: ctx.io.columns },
  ))
    ctx.io.out(line);
  return 0;
}
