// Where orc keeps its files: ORC_CONFIG_DIR, else the platform's config folder.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.ORC_CONFIG_DIR) return env.ORC_CONFIG_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'orc');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'orc');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'orc');
}
