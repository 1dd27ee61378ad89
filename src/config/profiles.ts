// Profiles: a base URL, a test key and a live key each, in <config folder>/config.json (mode 0600).
// Reads are a plain JSON parse (every command reads; conf and its schema validator would slow each start:
// docs/figures.md);
// writes go through conf, which writes atomically with the file mode we ask for.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../exit/errors.js';

export interface StoredProfile {
  base_url: string;
  test_key?: string;
  /** Present only when no keychain could hold it. */
  live_key?: string;
  /** Where the live key is, if there is one. */
  live_key_in?: 'keychain' | 'file';
  /** A PEM file of CA certificates to trust for this profile's https, besides the system's. */
  ca_file?: string;
}

export interface ConfigFile {
  active_profile?: string;
  profiles: Record<string, StoredProfile>;
}

export const BUILT_IN_PROFILE = 'sandbox';
export const configFile = (configDir: string) => join(configDir, 'config.json');

/** The stored config; none yet is an empty one. A config that is there but broken is an error (exit 4)
 * naming the file: falling back to the built-in profile would send commands somewhere the user did not mean. */
export function readConfig(configDir: string): ConfigFile {
  const file = configFile(configDir);
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { profiles: Object.create(null) as Record<string, StoredProfile> };
    if (code === 'ENOTDIR')
      throw new ConfigError(
        `the config folder ${configDir} is a file, not a folder`,
        'Move it away, or point ORC_CONFIG_DIR at a folder.',
      );
    if (code === 'EISDIR')
      throw new ConfigError(
        `${file} is a folder, not the config file`,
        'Move it away; orc writes the file when you add a profile.',
      );
    throw new ConfigError(`cannot read ${file}: ${code ?? (err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(
      `${file} is not valid JSON (${(err as Error).message})`,
      'Fix it, or remove it to start again; orc will not guess your profiles.',
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError(`${file} must hold a JSON object with "profiles"`);
  const config = parsed as Partial<ConfigFile>;
  if (
    config.profiles !== undefined &&
    (config.profiles === null || typeof config.profiles !== 'object' || Array.isArray(config.profiles))
  )
    throw new ConfigError(`${file}: "profiles" must be an object of profiles by name`);
  // Looked up by names people type (`--profile constructor`): own properties only, never Object.prototype's.
  return { ...config, profiles: Object.assign(Object.create(null) as Record<string, StoredProfile>, config.profiles) };
}

/** Applies `change` to the stored config and writes it whole (atomically, 0600), one orc process at a time. */
export async function updateConfig(configDir: string, change: (config: ConfigFile) => void): Promise<ConfigFile> {
  const { withFileLock, writeJsonFile } = await import('./json-file.js');
  // Read inside the lock: another orc changing the file at the same time keeps its change too.
  return withFileLock(configDir, 'config', async () => {
    const config = readConfig(configDir);
    change(config);
    await writeJsonFile(configDir, 'config', config);
    return config;
  });
}

export function validProfileName(name: string): boolean {
  return /^[A-Za-z0-9][\w.-]{0,39}$/.test(name);
}
