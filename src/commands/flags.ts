// The kinds of flag and argument a command declares, and how each value is checked: the one place that
// decides how a flag is parsed (with an error naming it), what type its handler receives, and what shell
// completion offers. commands/define.ts puts them together into commands.
import { idProblem } from '../contract/ids.js';
import { parseDuration } from '../lib/duration.js';
import { UsageError } from '../exit/errors.js';

interface FlagBase {
  description: string;
  /** A one-letter alias: 'y' for -y. */
  short?: string;
  hidden?: boolean;
  /** What completion offers for the value: words, or files. */
  complete?: readonly string[] | 'files' | DynamicValues;
}
export interface BoolFlag extends FlagBase {
  type: 'bool';
  /** `--no-<name>`: on by default, the flag turns it off. */
  negatable?: boolean;
}
export interface StringFlag extends FlagBase {
  type: 'string';
  value: string;
  default?: string;
}
export interface IntFlag extends FlagBase {
  type: 'int';
  value: string;
  min: number;
  max?: number;
  default?: number;
}
export interface ChoiceFlag<T extends string = string> extends FlagBase {
  type: 'choice';
  value: string;
  choices: readonly T[];
  default?: T;
}
export interface ListFlag<T extends string = string> extends FlagBase {
  type: 'list';
  value: string;
  choices: readonly T[];
}
export interface SecondsFlag extends FlagBase {
  type: 'seconds';
  value: string;
  min?: number;
  default?: number;
}
export interface IdFlag extends FlagBase {
  type: 'id';
  value: string;
}
/** A string flag that may be given several times (`--set a=1 --set b=2`), in the order typed. */
export interface MultiFlag extends FlagBase {
  type: 'multi';
  value: string;
}
export type FlagDef = BoolFlag | StringFlag | IntFlag | ChoiceFlag | ListFlag | SecondsFlag | IdFlag | MultiFlag;
export type Flags = Record<string, FlagDef>;

type Maybe<S, T> = S extends { default: unknown } ? T : T | undefined;
export type FlagValue<S> = S extends BoolFlag
  ? S extends { negatable: true }
    ? boolean
    : boolean | undefined
  : S extends IntFlag
    ? Maybe<S, number>
    : S extends SecondsFlag
      ? Maybe<S, number>
      : S extends ChoiceFlag<infer T>
        ? Maybe<S, T>
        : S extends ListFlag<infer T>
          ? T[] | undefined
          : S extends MultiFlag
            ? string[]
            : S extends StringFlag
              ? Maybe<S, string>
              : string | undefined;
export type FlagValues<F> = { -readonly [K in keyof F]: FlagValue<F[K]> };

export interface ArgDef {
  name: string;
  /** An id that goes into a URL path: checked before anything is sent. */
  kind: 'id' | 'word';
  required: boolean;
  /** The last argument may take the rest of the words (`[kind...]`): the handler gets an array. */
  variadic?: boolean;
  complete?: readonly string[] | DynamicValues;
}

/** Values completion asks orc for (`orc __complete <source>`): they live on the service or in the config. */
export type DynamicValues = 'runs' | 'gated-runs' | 'webhooks' | 'profiles';
type ArgValue<A> = A extends { variadic: true } ? string[] : A extends { required: true } ? string : string | undefined;
export type ArgValues<A extends readonly ArgDef[]> = { -readonly [I in keyof A]: ArgValue<A[I]> };

// ---------- constructors ----------

export const flag = {
  bool: (description: string, o: { short?: string; hidden?: boolean } = {}): BoolFlag => ({
    type: 'bool',
    description,
    ...o,
  }),
  /** On unless `--no-<name>` is given. */
  negatable: (description: string, o: { hidden?: boolean } = {}) =>
    ({ type: 'bool', description, negatable: true, ...o }) as BoolFlag & { negatable: true },
  string: <
    const O extends {
      default?: string;
      short?: string;
      hidden?: boolean;
      complete?: readonly string[] | 'files' | DynamicValues;
    },
  >(
    value: string,
    description: string,
    o?: O,
  ) => ({ type: 'string', value, description, ...o }) as StringFlag & O,
  int: <const O extends { min: number; max?: number; default?: number; hidden?: boolean }>(
    value: string,
    description: string,
    o: O,
  ) => ({ type: 'int', value, description, ...o }) as IntFlag & O,
  choice: <const T extends string, const O extends { default?: T; hidden?: boolean }>(
    value: string,
    choices: readonly T[],
    description: string,
    o?: O,
  ) => ({ type: 'choice', value, choices, description, ...o }) as ChoiceFlag<T> & O,
  list: <const T extends string>(
    value: string,
    choices: readonly T[],
    description: string,
    o: { complete?: readonly string[] } = {},
  ) => ({ type: 'list', value, choices, description, ...o }) as ListFlag<T>,
  seconds: <const O extends { default?: number; min?: number; hidden?: boolean }>(
    value: string,
    description: string,
    o?: O,
  ) => ({ type: 'seconds', value, description, ...o }) as SecondsFlag & O,
  id: (value: string, description: string): IdFlag => ({ type: 'id', value, description }),
  multi: (
    value: string,
    description: string,
    o: { complete?: readonly string[] | 'files'; short?: string } = {},
  ): MultiFlag => ({ type: 'multi', value, description, ...o }),
};

export const arg = {
  id: <const N extends string>(name: N, o: { complete?: readonly string[] | DynamicValues } = {}) =>
    ({ name, kind: 'id', required: true, ...o }) as const,
  /** An id that may be left out: at a terminal the command offers the runs that fit (src/commands/pick.ts). */
  optionalId: <const N extends string>(name: N, o: { complete?: readonly string[] | DynamicValues } = {}) =>
    ({ name, kind: 'id', required: false, ...o }) as const,
  optionalWord: <const N extends string>(name: N, o: { complete?: readonly string[] | DynamicValues } = {}) =>
    ({ name, kind: 'word', required: false, ...o }) as const,
  word: <const N extends string>(name: N, o: { complete?: readonly string[] | DynamicValues } = {}) =>
    ({ name, kind: 'word', required: true, ...o }) as const,
  /** Zero or more ids, last of all (each checked as `id` is). */
  ids: <const N extends string>(name: N, o: { complete?: readonly string[] | DynamicValues } = {}) =>
    ({ name, kind: 'id', required: false, variadic: true, ...o }) as const,
  /** Zero or more words, last of all. */
  rest: <const N extends string>(name: N, o: { complete?: readonly string[] | DynamicValues } = {}) =>
    ({ name, kind: 'word', required: false, variadic: true, ...o }) as const,
};

// ---------- names and checking ----------

export const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The flag as typed on the command line: `--idempotency-key`, `--no-bell`. */
export function longName(key: string, def: FlagDef): string {
  return def.type === 'bool' && def.negatable ? `--no-${kebab(key)}` : `--${kebab(key)}`;
}

/** commander's syntax for the flag: `-y, --yes`, `--limit <n>`. */
export function commanderFlags(key: string, def: FlagDef): string {
  const value = def.type === 'bool' ? '' : ` <${def.value}>`;
  return `${def.short ? `-${def.short}, ` : ''}${longName(key, def)}${value}`;
}

export function usageLine(def: ArgDef): string {
  const name = def.variadic ? `${def.name}...` : def.name;
  return def.required ? `<${name}>` : `[${name}]`;
}

/** The default shown in help, if any. */
export function defaultOf(def: FlagDef): string | undefined {
  return 'default' in def && def.default !== undefined ? String(def.default) : undefined;
}

/** Turns what was typed into what the handler receives, or a UsageError naming the flag. */
export function checkFlag(key: string, def: FlagDef, raw: unknown): unknown {
  const name = longName(key, def).replace(/^--no-/, '--');
  try {
    return checkValue(name, def, raw);
  } catch (err) {
    if (err instanceof UsageError) err.field ??= name;
    throw err;
  }
}

function checkValue(name: string, def: FlagDef, raw: unknown): unknown {
  if (def.type === 'bool') return raw === undefined ? (def.negatable ? true : undefined) : Boolean(raw);
  if (def.type === 'multi') return Array.isArray(raw) ? raw.map(String) : raw === undefined ? [] : [String(raw)];
  if (raw === undefined || raw === null) return 'default' in def ? def.default : undefined;
  const text = String(raw);
  switch (def.type) {
    case 'string':
      return text;
    case 'int': {
      // A number of milliseconds (`--stage-ms`) may also be written as a duration: 90s, 15m, 3h, 2d.
      if (def.value === 'ms' && /[a-z]$/i.test(text.trim())) {
        const ms = parseDuration(text);
        if (ms === null || ms < def.min || ms > (def.max ?? Number.MAX_SAFE_INTEGER))
          throw new UsageError(
            `${name} must be milliseconds or a duration (500, 90s, 15m, 3h, 2d) of at least ${def.min} ms, not ${JSON.stringify(text)}`,
          );
        return ms;
      }
      const n = Number(text.trim());
      const max = def.max ?? Number.MAX_SAFE_INTEGER;
      if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < def.min || n > max)
        throw new UsageError(
          `${name} must be a whole number from ${def.min} ${max === Number.MAX_SAFE_INTEGER ? 'up' : `to ${max}`}, not ${JSON.stringify(text)}`,
        );
      return n;
    }
    case 'choice':
      if (!def.choices.includes(text))
        throw new UsageError(`${name} must be one of ${def.choices.join(', ')}, not ${JSON.stringify(text)}`);
      return text;
    case 'list': {
      const items = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const item of items)
        if (!def.choices.includes(item))
          throw new UsageError(
            `${name}: unknown value ${JSON.stringify(item)}; one or more of ${def.choices.join(', ')}, comma-separated`,
          );
      if (items.length === 0) throw new UsageError(`${name} needs one or more of ${def.choices.join(', ')}`);
      return [...new Set(items)];
    }
    case 'seconds': {
      const s = parseSeconds(text);
      if (s === null || s < (def.min ?? 0))
        throw new UsageError(
          `${name} must be a number of seconds${def.min ? ` from ${def.min}` : ''} (90, 90s, 2m), not ${JSON.stringify(text)}`,
        );
      return s;
    }
    case 'id': {
      const problem = idProblem(text);
      if (problem) throw new UsageError(`${name}: the id ${JSON.stringify(text)} ${problem}`);
      return text;
    }
  }
}

export function checkArg(def: ArgDef, value: string | string[] | undefined): void {
  if (Array.isArray(value)) return value.forEach((v) => checkArg(def, v));
  if (value === undefined || def.kind !== 'id') return;
  const problem = idProblem(value);
  if (problem)
    throw Object.assign(new UsageError(`<${def.name}>: the id ${JSON.stringify(value)} ${problem}; nothing was sent`), {
      field: `<${def.name}>`,
    });
}

/** `90`, `90s`, `1.5m`, `2h` → seconds; null when it is none of those. */
export function parseSeconds(text: string): number | null {
  const ms = parseDuration(text);
  return ms === null ? null : ms / 1000;
}
