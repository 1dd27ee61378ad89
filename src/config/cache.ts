// Small files orc keeps in the config folder's cache/ to answer faster next time (completion's recent runs,
// ended runs' names): read if there and for this base URL, written whole by rename (never half a file), and
// never a failure: a cache that cannot be read or written only makes the next command slower.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file's value when it was written for `baseUrl`; null when absent, unreadable, or another target's. */
export function readCache<T>(dir: string, name: string, baseUrl: string): T | null {
  try {
    const c = JSON.parse(readFileSync(join(dir, 'cache', name), 'utf8')) as { base_url?: unknown; value?: unknown };
    return c.base_url === baseUrl && c.value !== undefined ? (c.value as T) : null;
  } catch {
    return null;
  }
}

export function writeCache(dir: string, name: string, baseUrl: string, value: unknown): void {
  try {
    mkdirSync(join(dir, 'cache'), { recursive: true, mode: 0o700 });
    const file = join(dir, 'cache', name);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ base_url: baseUrl, value }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // only slower next time
  }
}
