// The limits on input that CONTRACT.md sets for the service and the client alike: JSON nests at most 64
// levels, and the keys `__proto__`, `constructor` and `prototype` are refused anywhere in a body.

export const MAX_DEPTH = 64;
/** A request body is at most 1 MiB (413 body_too_large past it). */
export const MAX_BODY_BYTES = 1024 * 1024;
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** How deep arrays and objects nest in JSON text, counted before parsing (strings skipped). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip what it escapes
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** How deep a parsed value nests (YAML, or JSON already parsed); stops counting past the limit. */
export function valueDepth(value: unknown, limit = MAX_DEPTH + 1): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit <= 0) return 1;
  let max = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) max = Math.max(max, valueDepth(v, limit - 1));
  return max + 1;
}

/** The first forbidden key in a value, with its dotted path, or null. */
export function forbiddenKey(value: unknown, path: string[] = []): { key: string; path: string } | null {
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = forbiddenKey(value[i], [...path, String(i)]);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return { key, path: [...path, key].join('.') };
    const found = forbiddenKey((value as Record<string, unknown>)[key], [...path, key]);
    if (found) return found;
  }
  return null;
}
