// The one way orc writes a file of its own in the config folder (config.json, sandbox.json): whole or
// not at all, mode 0600 in a 0700 folder. conf does the atomic write (temp file, fsync, rename); it is
// loaded only when something is written, never to read.
import { mkdirSync } from 'node:fs';

export async function writeJsonFile(dir: string, name: string, value: object): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { default: Conf } = await import('conf');
  // A record that no longer parses is replaced, not read: what is written next is the whole of it.
  const file = new Conf<Record<string, unknown>>({ cwd: dir, configName: name, projectName: 'orc', configFileMode: 0o600, clearInvalidConfig: true });
  file.store = value as Record<string, unknown>;
}
