// `orc spec diff <run> <run|file>`: what changed between two App Specs, by dotted path for people, as the JSON
// Merge Patch that turns the first into the second under --json.
import type { Context } from '../context.js';
import { dropNulls, type Spec } from '../../app-spec/document.js';
import { diffMergePatch, mergePatchChanges, type PatchChange } from '../../lib/merge-patch.js';
import { sanitizeLine } from '../../lib/sanitize.js';
import { UsageError } from '../../exit/errors.js';
import { loadStyle, type Style } from '../../ui/style.js';
import { parseDataInput, readInput } from '../input.js';
import type { ArgsOf } from '../define.js';
import type { diff as def } from './command.js';

export default async function diff(ctx: Context, [runId, other]: ArgsOf<typeof def>): Promise<number> {
  const io = ctx.io;
  // A file is read and checked before anything is asked of the service.
  const fromFile = isFile(other) ? await readSpec(ctx, other) : undefined;
  const api = await ctx.api();
  const [before, after] = await Promise.all([
    api.spec.retrieve(runId) as Promise<Spec>,
    fromFile ?? (api.spec.retrieve(other) as Promise<Spec>),
  ]);
  const patch = diffMergePatch(before, after);
  if (Object.keys(patch).length === 0) {
    io.info('no difference');
    if (io.json) io.writeJson({});
    return 0;
  }
  if (io.json) return (io.writeJson(patch), 0);
  const style = await loadStyle(io);
  for (const change of mergePatchChanges(before, patch)) io.out(changeLine(change, style));
  return 0;
}

/** `-` (stdin) or a path is a file; a run id has neither a dot nor a slash. */
function isFile(arg: string): boolean {
  return arg === '-' || /[./\\]/.test(arg);
}

/** `+ path: value`, `- path: value`, `~ path: old → new`, values as JSON; sanitised (a file's text has not
 * been), then painted. */
function changeLine(c: PatchChange, style: Style): string {
  const json = (v: unknown) => JSON.stringify(v);
  if (c.op === '+') return style.green(sanitizeLine(`+ ${c.path}: ${json(c.after)}`));
  if (c.op === '-') return style.red(sanitizeLine(`- ${c.path}: ${json(c.before)}`));
  return style.yellow(sanitizeLine(`~ ${c.path}: ${json(c.before)} → ${json(c.after)}`));
}

/** An App Spec from a file or stdin: a JSON or YAML object (a null field is one it does not have, as in an edit). */
async function readSpec(ctx: Context, source: string): Promise<Spec> {
  const label = source === '-' ? 'stdin (-)' : source;
  const value = await parseDataInput(await readInput(ctx, source, label), label, source);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`${label}: an App Spec must be an object (JSON or YAML)`);
  return dropNulls(value) as Spec;
}
