// `orc profile show [name]`: one profile (default: the one commands would use now), and where its keys live.
import { configFile, readConfig } from '../../config/profiles.js';
import type { Context } from '../context.js';
import { ConfigError } from '../../exit/errors.js';
import { orDash } from '../../ui/format.js';
import { profileViews } from './view.js';

export default async function show(ctx: Context, [name]: string[]): Promise<number> {
  const config = readConfig(ctx.configDir);
  const wanted = name ?? ctx.flags.profile ?? ctx.env.ORC_PROFILE ?? config.active_profile ?? 'sandbox';
  const view = (await profileViews(config, true, ctx.configDir, ctx.env)).find((v) => v.name === wanted);
  if (!view) throw new ConfigError(`no profile named ${JSON.stringify(wanted)}`, 'See `orc profile list`.');
  if (ctx.io.json) {
    ctx.io.writeJson({ ...view, config_file: configFile(ctx.configDir) });
    return 0;
  }
  const where = (k: string | null, inWhat: string | null) =>
    k
      ? `${k}  (${inWhat === 'config file' ? configFile(ctx.configDir) : inWhat === 'keychain' ? 'system keychain' : inWhat})`
      : '—';
  ctx.io.out(`name      ${view.name}${view.active ? '  (active)' : ''}${view.built_in ? '  (built-in)' : ''}`);
  ctx.io.out(`base url  ${orDash(view.base_url)}`);
  ctx.io.out(`test key  ${where(view.test_key, view.test_key_in)}`);
  ctx.io.out(`live key  ${where(view.live_key, view.live_key_in)}`);
  if (view.ca_file) ctx.io.out(`ca file   ${view.ca_file}`);
  return 0;
}
