// A spec change given as flags (--set, --unset, --file): read and checked before anything is asked of the
// service, then applied to a copy of the spec. `orc spec edit`, `orc gate approve|reject` and `orc run retry`
// all take their change here.
import type { Context } from '../context.js';
import { applyMergePatch } from '../../lib/merge-patch.js';
import { UsageError } from '../../exit/errors.js';
import type { Spec } from '../../app-spec/document.js';
import { parseAssignment, setPath, splitPath, unsetPath } from '../../app-spec/paths.js';
import { parseDataInput, readInput } from '../input.js';
import { AppSpecInput } from '../../contract/schemas.js';
import { closest } from '../../lib/suggest.js';

export interface ChangeFlags {
  set: string[];
  unset: string[];
  file?: string | undefined;
}

export interface FlagChange {
  /** Whether any change was asked for. */
  given: boolean;
  /** The change made to a copy of the spec; a typo in a --set field is refused here, with the field meant. */
  apply: (copy: Spec) => Spec;
}

/** The flags' change, parsed: a bad assignment, path or patch file stops here, before anything is sent. */
export async function readFlagChange(ctx: Context, flags: ChangeFlags): Promise<FlagChange> {
  const sets = flags.set.map((s) => ({ ...parseAssignment(s), shown: `--set ${s}` }));
  const unsets = flags.unset.map((u) => ({ path: splitPath(u, '--unset'), shown: `--unset ${u}` }));
  const filePatch = flags.file === undefined ? undefined : await readPatch(ctx, flags.file);
  return {
    given: sets.length > 0 || unsets.length > 0 || filePatch !== undefined,
    apply: (copy) => {
      refuseTypos(sets, copy);
      const changed = filePatch ? (applyMergePatch(copy, filePatch) as Spec) : copy;
      for (const s of sets) setPath(changed, s.path, s.value, s.shown);
      for (const u of unsets) unsetPath(changed, u.path, u.shown);
      return changed;
    },
  };
}

/** A field the spec does not have and the schema does not know, one slip from one it knows, is a typo. */
export function refuseTypos(sets: Array<{ path: string[]; shown: string }>, before: Spec = {}): void {
  const known = Object.keys(AppSpecInput.def.shape);
  for (const s of sets) {
    const top = s.path[0]!;
    if (known.includes(top) || Object.hasOwn(before, top)) continue;
    const near = closest(top, known);
    if (near)
      throw Object.assign(
        new UsageError(
          `${s.shown}: the App Spec has no field ${JSON.stringify(top)}; did you mean ${near}? Nothing was sent.`,
        ),
        { field: s.shown.split(' ')[0] },
      );
  }
}

/** A merge patch from a file or stdin: a JSON or YAML object, within the limits, checked before anything is sent. */
async function readPatch(ctx: Context, source: string): Promise<Spec> {
  const label = `--file ${source}`;
  const value = await parseDataInput(await readInput(ctx, source, label), label, source);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`${label}: a merge patch must be an object (JSON or YAML)`);
  return value as Spec;
}
