// JSON Merge Patch (RFC 7396), both ways: apply one (the service), and compute one from an edit (the client).

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** null removes a key, objects merge, everything else (arrays too) replaces. Own keys only: a key named
 * `__proto__` or `constructor` is a plain key here, never the prototype or an inherited property. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else setOwn(out, key, applyMergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value));
  }
  return out;
}

/** The smallest patch that turns `before` into `after` (a null in `after` cannot be said, and is dropped).
 * Own keys only, as on the apply side: `toString` or `constructor` is a field like any other. */
export function diffMergePatch(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) setOwn(patch, key, null);
  for (const [key, value] of Object.entries(after)) {
    const was = Object.hasOwn(before, key) ? before[key] : undefined;
    if (value === null || deepEqual(was, value)) continue;
    setOwn(patch, key, isObject(was) && isObject(value) ? diffMergePatch(was, value) : value);
  }
  return patch;
}

/** One leaf of what a patch does to `before`, by dotted path: added, removed or changed (a list is a leaf). */
export interface PatchChange {
  op: '+' | '-' | '~';
  path: string;
  before?: unknown;
  after?: unknown;
}

/** What `patch` (as diffMergePatch makes it) changes in `before`, leaf by leaf, in the patch's order: the one
 * reading of a patch that a diff shown to people is drawn from. */
export function mergePatchChanges(before: unknown, patch: Record<string, unknown>, prefix = ''): PatchChange[] {
  const out: PatchChange[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const had = isObject(before) && Object.hasOwn(before, key);
    const was = had ? (before as Record<string, unknown>)[key] : undefined;
    if (value === null) {
      if (had) out.push({ op: '-', path, before: was });
    } else if (isObject(was) && isObject(value)) out.push(...mergePatchChanges(was, value, path));
    else {
      const after = applyMergePatch(undefined, value);
      out.push(had ? { op: '~', path, before: was, after } : { op: '+', path, after });
    }
  }
  return out;
}

/** The merge patch that sets `value` at the dotted `path` of `target` (a check's suggestion at its field): the
 * objects on the way nest; a list on the way is sent whole with its item changed, as a merge patch replaces
 * lists. `value` null is not a value here (it would remove the field). */
export function mergePatchAt(target: unknown, path: string[], value: unknown): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return value;
  if (Array.isArray(target) && /^\d+$/.test(key)) {
    const list = [...target];
    const i = Number(key);
    list[i] = applyMergePatch(list[i], mergePatchAt(list[i], rest, value));
    return list;
  }
  const patch: Record<string, unknown> = {};
  setOwn(
    patch,
    key,
    mergePatchAt(isObject(target) && Object.hasOwn(target, key) ? target[key] : undefined, rest, value),
  );
  return patch;
}

/** What is at the dotted `path` of `target`, own keys only; undefined where nothing is. */
export function valueAt(target: unknown, path: string[]): unknown {
  let node = target;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
