// Running one command once its words are parsed, whoever parsed them: commander (program.ts: help, errors,
// anything unusual) or the direct reader of plain command lines (fast.ts). Flags are checked as their
// specs declare, the handler is loaded and run in a context of its own, and a failure becomes its report
// and exit code. No commander here: the direct path must not load it.
import type { Clock } from '../lib/clock.js';
import { createContext } from '../commands/context.js';
import { EXIT, InterruptedError } from '../exit/errors.js';
import type { Streams } from '../ui/io.js';
import { GLOBAL_FLAGS } from '../commands/globals.js';
import { report } from './report.js';
import * as define from '../commands/define.js';
import type { CommandDef } from '../commands/define.js';

export interface RunOptions extends Partial<Streams> {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** The orc launcher, for commands that start orc again in the background (the sandbox). */
  launcher?: string;
  /** For tests: what runs a parsed command instead of `execute` (to see what a line would run). */
  runParsed?: typeof execute;
}

/**
 * Runs the command `c` with its positional arguments (undefined where an optional one was not given) and the
 * raw values of its flags and the global ones (as typed; absent ones undefined or their defaults).
 */
export async function execute(
  c: CommandDef,
  args: Array<string | string[] | undefined>,
  raw: Record<string, unknown>,
  opts: RunOptions,
): Promise<number> {
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  (c.args ?? []).forEach((a, i) => define.checkArg(a, args[i]));
  const flags: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(GLOBAL_FLAGS)) flags[key] = define.checkFlag(key, s, raw[key]);
  for (const [key, s] of Object.entries(c.flags ?? {})) flags[key] = define.checkFlag(key, s, raw[key]);
  // --jq implies --json, and its expression is compiled before anything is sent.
  const jq = flags.jq === undefined ? null : await import('../ui/jq.js').then((m) => m.jqFilter(flags.jq as string));
  if (jq) flags.json = true;
  const handler = (await c.load!()).default as unknown as (
    ctx: unknown,
    args: unknown,
    flags: unknown,
  ) => Promise<number | void>;
  // process.stdin is made only when a command reads it (see Streams.stdinIsTTY).
  const given = opts.stdin;
  const streams = given
    ? { stdin: given, stdout, stderr }
    : {
        get stdin() {
          return process.stdin;
        },
        stdinIsTTY: (process.getBuiltinModule('node:tty') as typeof import('node:tty')).isatty(0),
        stdout,
        stderr,
      };
  const ctx = createContext(flags as never, streams, opts.env ?? process.env, {
    ...(opts.clock ? { clock: opts.clock } : {}),
    launcher: opts.launcher ?? process.argv[1] ?? 'orc',
  });
  if (jq) ctx.io.filter = jq;
  try {
    return (await handler(ctx, args, flags)) ?? EXIT.ok;
  } catch (err) {
    throw await ctx.retell(err);
  } finally {
    ctx.dispose();
  }
}

/** A command's failure, told (text or JSON) with its exit code; Ctrl-C or Ctrl-D at a prompt is 130. */
export function failed(err: unknown, json: boolean, stderr: NodeJS.WritableStream): number {
  const name = (err as Error)?.name;
  if (name === 'ExitPromptError' || name === 'AbortPromptError')
    return report(new InterruptedError('interrupted; nothing more was done'), json, stderr);
  return report(err, json, stderr);
}

/** Under --json (or --jq) a failure is one JSON object on stderr. */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.includes('--json') || argv.some((a) => a === '--jq' || a.startsWith('--jq='));
}
