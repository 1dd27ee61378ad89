// The entry point: builds the program from the command table, runs it, and maps errors to exit codes.
// This is the only place that exits.
import type { Command } from 'commander';
import type { CommandSpec, Handler } from './commands/types.js';
import type { GlobalFlags } from './context.js';
import { EXIT, OrcError } from './errors.js';
import { sanitize } from './ui/sanitize.js';
import { VERSION } from './version.js';

export async function main(argv: string[]): Promise<never> {
  const code = await run(argv);
  await drain(process.stdout);
  await drain(process.stderr);
  process.exit(code);
}

/** Runs orc and answers its exit code; tests call this directly. */
export async function run(argv: string[]): Promise<number> {
  // `orc --version` is asked by scripts and shells all the time: answer it before building anything.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  // Everything past the fast path loads here, so `--version` pays for none of it.
  const [{ Command, CommanderError, Option }, { createContext }, { COMMANDS, GLOBAL_OPTIONS }] = await Promise.all([
    import('commander'),
    import('./context.js'),
    import('./commands/index.js'),
  ]);
  let exitCode: number = EXIT.ok;
  const program = new Command('orc')
    .description('Drive runs on the Run Orchestration Service, or on its local sandbox')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str.startsWith('error:') ? `orc: ${str.slice(7)}` : str) });
  for (const o of GLOBAL_OPTIONS) program.option(o.flags, o.description);
  program.addHelpText('after', '\nExit codes: 0 ok, 1 failure, 2 usage, 3 refused by the service, 4 auth/config, 5 run ended badly, 6 gate pending, 130 interrupted.\nDocs: README.md');
  const define = (parent: Command, spec: CommandSpec) => {
    const cmd = parent.command(spec.name).summary(spec.summary).description(spec.summary);
    for (const a of spec.args ?? []) cmd.argument(a);
    for (const o of spec.options ?? []) {
      const opt = new Option(o.flags, o.description);
      if (o.default !== undefined) opt.default(o.default);
      if (o.hidden) opt.hideHelp();
      cmd.addOption(opt);
    }
    if (spec.examples?.length) cmd.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
    if (spec.subcommands) {
      for (const sub of spec.subcommands) define(cmd, sub);
      cmd.action(() => cmd.help({ error: true }));
    } else if (spec.load) {
      const load = spec.load;
      cmd.action(async (...params: unknown[]) => {
        const self = params[params.length - 1] as Command;
        // Positional arguments keep their places; an optional one not given stays undefined.
        const args = params.slice(0, -2).map((v) => (v === undefined ? undefined : String(v))) as string[];
        const opts = self.optsWithGlobals() as GlobalFlags & Record<string, unknown>;
        const { default: handler } = (await load()) as { default: Handler };
        exitCode = (await handler(createContext(opts), args, opts)) ?? EXIT.ok;
      });
    }
  };
  // Only the command being run is built in full (its options and subcommands); the others are listed by
  // name and summary, which is all `orc --help` shows. `orc help …` builds everything.
  const invoked = firstCommandWord(argv);
  for (const spec of COMMANDS) {
    if (invoked === undefined || invoked === 'help' || invoked === spec.name) define(program, spec);
    else program.command(spec.name).summary(spec.summary).description(spec.summary);
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with 0; every parse error is a usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if ((err as Error)?.name === 'ExitPromptError') return EXIT.interrupted; // Ctrl-C at a prompt
    if (err instanceof OrcError) {
      const stderr = process.stderr;
      stderr.write(`orc: ${sanitize(err.message)}\n`);
      if (err.hint) stderr.write(`${sanitize(err.hint)}\n`);
      return err.exitCode;
    }
    process.stderr.write(`orc: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.failure;
  }
}

/** The first word of argv that is not an option or the value of a global option. */
function firstCommandWord(argv: string[]): string | undefined {
  const takesValue = new Set(['--profile', '--base-url']);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (takesValue.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

function drain(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (!stream.writableNeedDrain) return resolve();
    stream.once('drain', () => resolve());
  });
}
