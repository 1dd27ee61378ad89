// `orc profile remove <name>`: the profile, its keys in the file and in the keychain. It asks first at a
// terminal; without one it needs --yes (as webhook remove): a live key removed is a key to find again.
import { keychainDelete, liveKeyAccount } from '../../config/keychain.js';
import { BUILT_IN_PROFILE, readConfig, updateConfig } from '../../config/profiles.js';
import type { Context } from '../context.js';
import { ConfigError, InterruptedError, UsageError } from '../../exit/errors.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { remove as def } from './command.js';

export default async function remove(
  ctx: Context,
  [name]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  if (name === BUILT_IN_PROFILE) throw new UsageError('the built-in sandbox profile cannot be removed');
  const profile = readConfig(ctx.configDir).profiles[name!];
  if (!profile) throw new ConfigError(`no profile named ${JSON.stringify(name)}`, 'See `orc profile list`.');
  if (!flags.yes) {
    if (!ctx.io.canPrompt)
      throw new UsageError(
        `removing profile ${name} needs --yes when no one can be asked`,
        `orc profile remove ${name} --yes`,
      );
    const keys = [
      profile.test_key ? 'its test key' : '',
      profile.live_key || profile.live_key_in === 'keychain' ? 'its live key' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    if (!(await (await ctx.prompter()).confirm(`Remove profile ${name}${keys ? ` with ${keys}` : ''}?`, false)))
      throw new InterruptedError(`not removed: ${name} stays`);
  }
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
