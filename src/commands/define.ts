// The command DSL: a command is plain data (name, help, positional arguments and flags, each flag of a kind
// declared in flags.ts), and its handler is typed from that data (inferred, so renaming a flag breaks the
// build) and loaded only when its command runs. cli/ turns these definitions into commander's program.
import type { Context } from './context.js';
import type { ArgDef, ArgValues, Flags, FlagValues } from './flags.js';
import type { GlobalFlagValues } from './globals.js';

export * from './flags.js';
export type { GlobalFlagValues } from './globals.js';

export interface CommandDef<F extends Flags = Flags, A extends readonly ArgDef[] = readonly ArgDef[]> {
  name: string;
  summary: string;
  args?: A;
  flags?: F;
  /** What `--json` prints (a command that runs, not a group of them): shown in its help and in `orc help json`. */
  json?: string;
  /** Two or three real examples, shown at the end of --help. */
  examples: readonly string[];
  /** More help after the examples (`orc mcp --help`: a client's configuration). */
  more?: string;
  load?: () => Promise<{ default: (ctx: Context, args: never, flags: never) => Promise<number | void> }>;
  subcommands?: readonly CommandDef[];
}

/** Gives a definition its handler. Kept apart from `command()` so that a handler typed by its definition
 * (`FlagsOf<typeof def>`) does not make the definition's type depend on itself. */
export function handled<S extends CommandDef>(def: S, load: NonNullable<CommandDef['load']>): S {
  return { ...def, load };
}

/** Checks nothing at run time; keeps the literal types of the flags and arguments for the handler. */
export function command<const F extends Flags, const A extends readonly ArgDef[] = []>(
  def: CommandDef<F, A>,
): CommandDef<F, A> {
  return def;
}

/** What a handler receives: its own flags and the global ones, typed from the def. */
export type FlagsOf<S> = S extends CommandDef<infer F, readonly ArgDef[]> ? FlagValues<F> & GlobalFlagValues : never;
export type ArgsOf<S> = S extends CommandDef<Flags, infer A> ? ArgValues<A> : never;
