// `orc profile use <name>`: the profile commands use when no flag or variable says otherwise.
import { BUILT_IN_PROFILE, readConfig, updateConfig } from '../../config/profiles.js';
import type { Context } from '../context.js';
import { ConfigError } from '../../exit/errors.js';

export default async function use(ctx: Context, [name]: string[]): Promise<number> {
  if (name !== BUILT_IN_PROFILE && !readConfig(ctx.configDir).profiles[name!])
    throw new ConfigError(
      `no profile named ${JSON.stringify(name)}`,
      'See `orc profile list`, or add it with `orc profile add`.',
    );
  await updateConfig(ctx.configDir, (c) => {
    c.active_profile = name!;
  });
  if (ctx.io.json) ctx.io.writeJson({ active_profile: name });
  else ctx.io.info(`Now using profile ${name}.`);
  return 0;
}
