// `--set path=value` and `--unset path` on a copy of the spec: dotted paths, numbers index into lists.
import { UsageError } from '../exit/errors.js';

type Container = Record<string, unknown> | unknown[];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `brand.palette.0=#112233` → the path and the value: JSON when it parses as JSON, else the text. */
export function parseAssignment(text: string): { path: string[]; value: unknown } {
  const eq = text.indexOf('=');
  if (eq <= 0)
    throw new UsageError(
      `--set ${JSON.stringify(text)}: write it as path=value (name=Stride, brand.palette.0=#FF6B35, features='["a","b"]')`,
    );
  const path = splitPath(text.slice(0, eq), '--set');
  const raw = text.slice(eq + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // not JSON: the text itself
  }
  return { path, value };
}

export function splitPath(text: string, flag: string): string[] {
  // features[0] is read as features.0, the way people write it elsewhere.
  const path = text.replace(/\[(\d+)\]/g, '.$1').split('.');
  if (path.some((p) => p === ''))
    throw new UsageError(
      `${flag} ${JSON.stringify(text)}: a path is field names joined by dots (brand.palette.0, or brand.palette[0]), with no empty part`,
    );
  return path;
}

/** Sets the value at the path, making the objects on the way; an index may add one item at a list's end. */
export function setPath(root: Record<string, unknown>, path: string[], value: unknown, shown: string): void {
  let node: Container = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const last = i === path.length - 1;
    if (Array.isArray(node)) {
      const index = listIndex(key, node.length + 1, shown);
      if (last) node[index] = value;
      else node = (node[index] = child(node[index], path[i + 1]!)) as Container;
    } else if (last) {
      Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      const next = child(Object.hasOwn(node, key) ? node[key] : undefined, path[i + 1]!);
      Object.defineProperty(node, key, { value: next, enumerable: true, writable: true, configurable: true });
      node = next;
    }
  }
}

/** Removes the field (or the list item) at the path; a path that is not there is an error naming it. */
export function unsetPath(root: Record<string, unknown>, path: string[], shown: string): void {
  let node: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    node = Array.isArray(node)
      ? node[listIndex(key, node.length, shown)]
      : isObject(node) && Object.hasOwn(node, key)
        ? node[key]
        : undefined;
    if (node === undefined) throw new UsageError(`${shown}: the spec has no ${path.slice(0, i + 1).join('.')}`);
  }
  const key = path[path.length - 1]!;
  if (Array.isArray(node)) node.splice(listIndex(key, node.length, shown), 1);
  else if (isObject(node) && Object.hasOwn(node, key)) delete node[key];
  else throw new UsageError(`${shown}: the spec has no ${path.join('.')}`);
}

function listIndex(key: string, limit: number, shown: string): number {
  if (!/^\d+$/.test(key) || Number(key) >= limit)
    throw new UsageError(
      `${shown}: ${JSON.stringify(key)} is not an index of that list (0 to ${Math.max(0, limit - 1)})`,
    );
  return Number(key);
}

/** The container a path goes on into: what is there, or a new list (next part a number) or object. */
function child(existing: unknown, nextKey: string): Container {
  if (Array.isArray(existing) || isObject(existing)) return existing;
  return /^\d+$/.test(nextKey) && nextKey === '0' ? [] : {};
}
