// A command is plain data (name, flags, help, examples) plus a handler loaded only when it runs.
import type { Context } from '../context.js';

export type Handler<O = Record<string, unknown>> = (ctx: Context, args: string[], opts: O) => Promise<number | void>;

export interface OptionSpec {
  flags: string;
  description: string;
  default?: string | boolean;
  hidden?: boolean;
  /** The values shell completion offers for this option. */
  choices?: readonly string[];
  /** Shell completion offers file names for this option's value. */
  files?: boolean;
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** commander argument syntax: '<run>', '[gate]' */
  args?: string[];
  options?: OptionSpec[];
  examples?: string[];
  load?: () => Promise<{ default: Handler<never> }>;
  subcommands?: CommandSpec[];
}
