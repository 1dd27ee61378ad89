// Profiles: a base URL, a test key and a live key each, in <config folder>/config.json (mode 0600).
// Reads are a plain JSON parse (every command reads; conf and its schema validator would cost ~40 ms);
// writes go through conf, which writes atomically with the file mode we ask for.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StoredProfile {
  base_url: string;
  test_key?: string;
  /** Present only when no keychain could hold it. */
  live_key?: string;
  /** Where the live key is, if there is one. */
  live_key_in?: 'keychain' | 'file';
}

export interface ConfigFile {
  active_profile?: string;
  profiles: Record<string, StoredProfile>;
}

export const BUILT_IN_PROFILE = 'sandbox';
export const configFile = (configDir: string) => join(configDir, 'config.json');

export function readConfig(configDir: string): ConfigFile {
  let raw: string;
  try {
    raw = readFileSync(configFile(configDir), 'utf8');
  } catch {
    return { profiles: {} };
  }
  try {
    const parsed = JSON.parse(raw) as Partial<ConfigFile>;
    return { ...parsed, profiles: parsed.profiles && typeof parsed.profiles === 'object' ? parsed.profiles : {} };
  } catch {
    return { profiles: {} };
  }
}

/** Applies `change` to the stored config and writes it whole (atomically, 0600). */
export async function updateConfig(configDir: string, change: (config: ConfigFile) => void): Promise<ConfigFile> {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const { default: Conf } = await import('conf');
  const store = new Conf<ConfigFile>({ cwd: configDir, configName: 'config', projectName: 'orc', configFileMode: 0o600, defaults: { profiles: {} } });
  const config = readConfig(configDir);
  change(config);
  store.store = config;
  return config;
}

export function validProfileName(name: string): boolean {
  return /^[A-Za-z0-9][\w.-]{0,39}$/.test(name);
}
