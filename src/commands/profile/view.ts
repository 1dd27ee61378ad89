// A profile as shown: keys redacted, and where each one lives.
import { SANDBOX_DEFAULT_KEY, redactKey } from '../../contract/keys.js';
import { defaultSandboxUrl } from '../../config/sandbox-defaults.js';
import { keychainGet, liveKeyAccount } from '../../config/keychain.js';
import { BUILT_IN_PROFILE, type ConfigFile } from '../../config/profiles.js';
import { readState } from '../../config/sandbox-state.js';
import { isAlive } from '../../lib/pid.js';

export interface ProfileView {
  name: string;
  active: boolean;
  built_in: boolean;
  base_url: string;
  test_key: string | null;
  test_key_in: 'config file' | 'built-in' | null;
  live_key: string | null;
  live_key_in: 'keychain' | 'config file' | null;
  /** A PEM file of CA certificates trusted for this profile besides the system's. */
  ca_file: string | null;
}

export async function profileViews(
  config: ConfigFile,
  readKeychain: boolean,
  configDir: string,
  env: NodeJS.ProcessEnv,
): Promise<ProfileView[]> {
  const active = config.active_profile ?? BUILT_IN_PROFILE;
  const views: ProfileView[] = [];
  if (!config.profiles[BUILT_IN_PROFILE]) {
    // As resolveTarget sees it: the sandbox this config folder started, else the default address.
    const state = readState(configDir);
    const running = state && isAlive(state.pid) ? state : null;
    views.push({
      name: BUILT_IN_PROFILE,
      active: active === BUILT_IN_PROFILE,
      built_in: true,
      base_url: running?.url ?? defaultSandboxUrl(env),
      test_key: redactKey(running?.api_key ?? SANDBOX_DEFAULT_KEY),
      test_key_in: 'built-in',
      live_key: null,
      live_key_in: null,
      ca_file: running?.ca_file ?? null,
    });
  }
  for (const [name, p] of Object.entries(config.profiles)) {
    let live: string | null = null;
    if (p.live_key_in === 'file' && p.live_key) live = redactKey(p.live_key);
    if (p.live_key_in === 'keychain')
      live = readKeychain
        ? ((await keychainGet(liveKeyAccount(name)).then((k) => (k ? redactKey(k) : null))) ?? 'sk_live_…')
        : 'sk_live_…';
    views.push({
      name,
      active: active === name,
      built_in: false,
      base_url: p.base_url,
      test_key: p.test_key ? redactKey(p.test_key) : null,
      test_key_in: p.test_key ? 'config file' : null,
      live_key: live,
      live_key_in: p.live_key_in === 'file' ? 'config file' : (p.live_key_in ?? null),
      ca_file: p.ca_file ?? null,
    });
  }
  return views;
}
