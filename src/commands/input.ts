// What a flag reads from a file or, with `-`, from stdin; and JSON given by the user, checked by the
// service's own limits (nesting, forbidden keys) before anything is sent. Errors name the flag (exit 2).
import type { Context } from './context.js';
import { MAX_DEPTH, forbiddenKey, nestingDepth, valueDepth } from '../contract/limits.js';
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

/**
 * A change or a spec the user wrote as JSON or YAML (`--file patch.yaml`): JSON for a `.json` file, YAML for a
 * `.yaml`/`.yml` one (`null` or `~` removes a field, as in JSON); from stdin or another file, JSON when it opens
 * with `{` and reads as JSON, else YAML (a flow mapping `{tagline: x}` is YAML). Read by the App Spec editor's
 * YAML rules (app-spec/document.ts), checked as JSON is: nesting, forbidden keys; errors name the flag (exit 2).
 */
export async function parseDataInput(text: string, label: string, source: string): Promise<unknown> {
  // (loaded here: the App Spec's module holds its schema, which no command that reads no YAML should load)
  const { readYaml } = await import('../app-spec/document.js');
  const yamlFile = /\.ya?ml$/i.test(source);
  if (/\.json$/i.test(source)) return parseJsonInput(text, label);
  if (!yamlFile && /^\s*\{/.test(text)) {
    try {
      return parseJsonInput(text, label);
    } catch (err) {
      // Not JSON: YAML's flow mapping, or the JSON error when YAML cannot read it either.
      const read = await readYaml(text);
      if ('problem' in read) throw err;
      return checkedData(read.value, label);
    }
  }
  const read = await readYaml(text);
  if ('problem' in read) {
    const flag = /^--\S+/.exec(label)?.[0];
    throw Object.assign(new UsageError(`${label}: ${read.problem}`), flag ? { field: flag } : {});
  }
  return checkedData(read.value, label);
}

function checkedData(value: unknown, label: string): unknown {
  if (valueDepth(value) > MAX_DEPTH) throw new UsageError(`${label}: the YAML nests deeper than ${MAX_DEPTH} levels`);
  const bad = forbiddenKey(value);
  if (bad) throw new UsageError(`${label}: ${bad.path}: the key ${JSON.stringify(bad.key)} is not allowed`);
  return value;
}
