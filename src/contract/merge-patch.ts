// JSON Merge Patch (RFC 7396), both ways: apply one (the service), and compute one from an edit (the client).

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** null removes a key, objects merge, everything else (arrays too) replaces. Own keys only: a key named
 * `__proto__` or `constructor` is a plain key here, never the prototype or an inherited property. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else Object.defineProperty(out, key, { value: applyMergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The smallest patch that turns `before` into `after` (a null in `after` cannot be said, and is dropped). */
export function diffMergePatch(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (!(key in after)) patch[key] = null;
  for (const [key, value] of Object.entries(after)) {
    if (value === null || deepEqual(before[key], value)) continue;
    patch[key] = isObject(before[key]) && isObject(value) ? diffMergePatch(before[key] as Record<string, unknown>, value) : value;
  }
  return patch;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}
