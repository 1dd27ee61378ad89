// The entry point: builds the program from the command table, runs it, and maps errors to exit codes.
// This is the only place that exits.
import { Command, CommanderError, Option } from 'commander';
import { COMMANDS } from './commands/index.js';
import type { CommandSpec, Handler } from './commands/types.js';
import { createContext, type GlobalFlags } from './context.js';
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
  let exitCode: number = EXIT.ok;
  const program = new Command('orc')
    .description('Drive runs on the Run Orchestration Service, or on its local sandbox')
    .version(VERSION, '-V, --version')
    .option('--json', 'print one JSON document on stdout (for scripts)')
    .option('--no-input', 'never prompt; fail with exit 2 where input is needed')
    .option('--profile <name>', 'use this profile (default: ORC_PROFILE, then the active one, then the built-in sandbox)')
    .option('--live', 'use the live key and the live service (default: the test key)')
    .option('--base-url <url>', 'talk to this service address (default: ORC_BASE_URL, then the profile)')
    .option('--debug', 'show the HTTP exchange on stderr (keys redacted)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str.startsWith('error:') ? `orc: ${str.slice(7)}` : str) });
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
  for (const spec of COMMANDS) define(program, spec);

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

function drain(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (!stream.writableNeedDrain) return resolve();
    stream.once('drain', () => resolve());
  });
}
