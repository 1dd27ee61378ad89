// What a flag reads from a file or, with `-`, from stdin; and JSON given by the user, checked by the
// service's own limits (nesting, forbidden keys) before anything is sent. Errors name the flag (exit 2).
import type { Context } from './context.js';
import { MAX_DEPTH, forbiddenKey, nestingDepth } from '../contract/limits.js';
import { UsageError } from '../exit/errors.js';

/** The bytes of `source` (a path, or `-` for stdin); `label` is how errors name it (`--file patch.json`). */
export async function readInputBytes(ctx: Context, source: string, label: string): Promise<Buffer> {
  if (source === '-') return ctx.io.readStdinBytes();
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(source);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${label}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : (err as Error).message}`,
    );
  }
}

export async function readInput(ctx: Context, source: string, label: string): Promise<string> {
  return (await readInputBytes(ctx, source, label)).toString('utf8');
}

/** JSON text given by the user, parsed and checked: not deeper than the service allows, no `__proto__`. */
export function parseJsonInput(text: string, label: string): unknown {
  if (nestingDepth(text) > MAX_DEPTH) throw new UsageError(`${label}: the JSON nests deeper than ${MAX_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${label}: not valid JSON (${(err as Error).message})`);
  }
  const bad = forbiddenKey(value);
  if (bad) throw new UsageError(`${label}: ${bad.path}: the key ${JSON.stringify(bad.key)} is not allowed`);
  return value;
}
