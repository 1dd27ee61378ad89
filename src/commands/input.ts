// What a flag reads from a file or, with `-`, from stdin; and JSON given by the user, checked by the
// service's own limits (nesting, forbidden keys) before anything is sent. Errors name the flag (exit 2).
import type { Context } from './context.js';
import { MAX_DEPTH, forbiddenKey, nestingDepth, valueDepth } from '../contract/limits.js';
import { UsageError } from '../exit/errors.js';
import { cjs } from '../lib/interop.js';

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

/**
 * A change or a spec the user wrote as JSON or YAML (`--file patch.yaml`): JSON for a `.json` file or text that
 * opens with `{`, YAML otherwise (`null` or `~` removes a field, as in JSON). Checked as JSON is: nesting,
 * forbidden keys; a key given twice and an alias bomb are errors naming the flag.
 */
export async function parseDataInput(text: string, label: string, source: string): Promise<unknown> {
  if (/\.json$/i.test(source) || /^\s*\{/.test(text)) return parseJsonInput(text, label);
  const { parseDocument } = cjs(await import('yaml'));
  const doc = parseDocument(text, { uniqueKeys: true });
  const err = doc.errors[0];
  if (err) throw new UsageError(`${label}: not valid YAML (${err.message.split('\n')[0]})`);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new UsageError(`${label}: not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
  if (valueDepth(value) > MAX_DEPTH) throw new UsageError(`${label}: the YAML nests deeper than ${MAX_DEPTH} levels`);
  const bad = forbiddenKey(value);
  if (bad) throw new UsageError(`${label}: ${bad.path}: the key ${JSON.stringify(bad.key)} is not allowed`);
  return value;
}
