// What the tolerant reader let pass without knowing it: a schema walked beside a value that it accepts.
import { KNOWN_TABLES, KNOWN_VALUES, TABLES } from './schemas.js';

/** A field a loose object does not name, or a string outside the values the contract knows for it. */
export interface Unknown {
  kind: 'field' | 'value';
  /** Dotted from the value's root; a list's items as `[]` (`data[].status`). */
  path: string;
  /** The value, for a `value`; a field's own value is not repeated (it may be anything, of any size). */
  value?: unknown;
}

/** The part of a zod-mini schema's definition this walk reads. */
interface Def {
  type: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  innerType?: Schema;
  options?: Schema[];
  items?: Schema[];
  valueType?: Schema;
  in?: Schema;
  getter?: () => Schema;
}
interface Schema {
  _zod: { def: Def };
  safeParse(value: unknown): { success: boolean };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * Each thing `schema` lets pass in `value` without knowing it, each path, kind and value once, in the order
 * met. `value` is what the service sent (before parsing: a loose object keeps unknown keys, a plain one
 * strips them; both are told). A value the schema refuses has nothing to tell where it is refused.
 */
export function unknownsOf(schema: unknown, value: unknown): Unknown[] {
  const found = new Map<string, Unknown>();
  walk(schema as Schema, value, '', (u) => {
    const key = `${u.kind}\u0000${u.path}\u0000${JSON.stringify(u.value) ?? ''}`;
    if (!found.has(key)) found.set(key, u);
  });
  return [...found.values()];
}

function walk(schema: Schema, value: unknown, path: string, tell: (u: Unknown) => void): void {
  const def = schema._zod.def;
  switch (def.type) {
    case 'object':
      return walkObject(def, value, path, tell);
    case 'array':
      if (Array.isArray(value)) for (const item of value) walk(def.element!, item, `${path}[]`, tell);
      return;
    case 'tuple':
      if (Array.isArray(value)) def.items!.forEach((s, i) => walk(s, value[i], `${path}[]`, tell));
      return;
    case 'record':
      if (isObject(value)) for (const k of Object.keys(value)) walk(def.valueType!, value[k], join(path, k), tell);
      return;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
      if (value !== undefined && value !== null) walk(def.innerType!, value, path, tell);
      return;
    case 'pipe':
      return walk(def.in!, value, path, tell);
    case 'lazy':
      return walk(def.getter!(), value, path, tell);
    case 'union': {
      // The option that takes the value is the one it was read as.
      const taken = def.options!.find((o) => o.safeParse(value).success);
      if (taken) walk(taken, value, path, tell);
      return;
    }
    case 'string':
      return walkString(schema, value, path, tell);
  }
}

function walkObject(def: Def, value: unknown, path: string, tell: (u: Unknown) => void): void {
  if (!isObject(value)) return;
  const shape = def.shape!;
  // A strict object refuses what it does not name: nothing it accepted is unknown.
  const strict = def.catchall?._zod.def.type === 'never';
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(shape, key)) walk(shape[key]!, value[key], join(path, key), tell);
    else if (!strict) tell({ kind: 'field', path: join(path, key) });
  }
}

function walkString(schema: Schema, value: unknown, path: string, tell: (u: Unknown) => void): void {
  const known = KNOWN_VALUES.get(schema) ?? KNOWN_TABLES.get(schema);
  if (known && typeof value === 'string' && !known.includes(value)) tell({ kind: 'value', path, value });
}

const outside = (table: readonly string[], value: unknown, path: string): Unknown | null =>
  typeof value === 'string' && !table.includes(value) ? { kind: 'value', path, value } : null;

/** An event kind (an SSE event's or a webhook's `type`) not in EVENT_KINDS (nor `log`), or null. */
export const unknownEventKind = (type: unknown, path = 'type') => outside(TABLES.eventKinds, type, path);
/** A stage not in the contract's stages, or null. */
export const unknownStage = (stage: unknown, path = 'stage') => outside(TABLES.stages, stage, path);
/** An error code not in ERROR_CODES, or null. */
export const unknownErrorCode = (code: unknown, path = 'error.code') => outside(TABLES.errorCodes, code, path);
