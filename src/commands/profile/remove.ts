// `orc profile remove <name>`: the profile, its keys in the file and in the keychain.
import { keychainDelete, liveKeyAccount } from '../../config/keychain.js';
import { BUILT_IN_PROFILE, readConfig, updateConfig } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { ConfigError, UsageError } from '../../errors.js';

export default async function remove(ctx: Context, [name]: string[]): Promise<number> {
  if (name === BUILT_IN_PROFILE) throw new UsageError('the built-in sandbox profile cannot be removed');
  const profile = readConfig(ctx.configDir).profiles[name!];
  if (!profile) throw new ConfigError(`no profile named ${JSON.stringify(name)}`, 'See `orc profile list`.');
  if (profile.live_key_in === 'keychain') await keychainDelete(liveKeyAccount(name!));
  let wasActive = false;
  await updateConfig(ctx.configDir, (c) => {
    delete c.profiles[name!];
    if (c.active_profile === name) {
      delete c.active_profile;
      wasActive = true;
    }
  });
  if (ctx.io.json) ctx.io.writeJson({ name, removed: true });
  else ctx.io.info(`Removed profile ${name}${wasActive ? '; commands now use the built-in sandbox profile' : ''}.`);
  return 0;
}
