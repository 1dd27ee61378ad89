// The program: builds commander from the command definitions, parses, checks every flag as its definition declares,
// runs the handler, and maps errors to exit codes (main.ts, the entry, turns the code into the exit).
// What every command needs is imported statically: this module is itself loaded on demand (main.ts), and
// one static graph bundles into fewer chunks than five import()s (each chunk a module for Node to load).
import { Command, CommanderError, Option } from 'commander';
import { NOUNS } from '../commands/index.js';
import * as define from '../commands/define.js';
import { GLOBAL_FLAGS } from '../commands/globals.js';
import type { CommandDef, FlagDef } from '../commands/define.js';
import { EXIT, UsageError } from '../exit/errors.js';
import { VERSION } from '../lib/version.js';
import { closest, didYouMean } from '../lib/suggest.js';
import { report } from './report.js';
import { execute, failed, wantsJson, type RunOptions } from './execute.js';

export type { RunOptions };

/** What the parse leaves behind: the handler's exit code, and commander's message for a parse error. */
interface Outcome {
  exitCode: number;
  parseError: string | null;
}

type Help = typeof import('../commands/topics.js');

/** Runs a command line through commander (help, usage errors, whatever the fast path left) and answers its exit
 * code. The entry is main.ts's run(), which decides whether this is needed. */
export async function runProgram(argv: string[], opts: RunOptions = {}): Promise<number> {
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  // Under --json a failure is one JSON object on stderr, commander's own parse errors too.
  const json = wantsJson(argv);
  // `orc help exit-codes`: a topic (src/commands/topics.ts), as text or, with --json, as data.
  const wantsHelp = argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
  const help = wantsHelp ? await import('../commands/topics.js') : null;
  if (help && argv[0] === 'help') {
    const answered = await answerHelp(help, argv, json, stdout, stderr);
    if (answered !== null) return answered;
    // `orc help gate approve` is `orc gate approve --help`; `orc help` is `orc --help`.
    argv = [...argv.slice(1), '--help'];
  }
  const outcome: Outcome = { exitCode: EXIT.ok, parseError: null };
  const program = newProgram(stdout, stderr, json, outcome, help?.TOPICS ?? []);
  // A coding agent: every help ends with what it needs to run orc without a person (src/cli/agent.ts).
  const agents = wantsHelp ? await import('./agent.js') : null;
  const agent = agents?.agentIn(opts.env ?? process.env) ?? null;
  const forAgents = agent ? agents!.agentHelp(agent) : '';
  if (forAgents) program.addHelpText('after', forAgents);
  await defineCommands(program, argv, { forAgents, opts, outcome });
  return parseAndRun(program, argv, json, stderr, outcome);
}

/** `orc help <topic>`, `orc help --json`, and `orc help <word>` that names nothing; null for a command's help. */
async function answerHelp(
  help: Help,
  argv: string[],
  json: boolean,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
): Promise<number | null> {
  const topics = help.TOPICS;
  const topic = topics.find((t) => t.name === argv[1]);
  if (topic) {
    if (argv.includes('--json')) stdout.write(`${JSON.stringify(await topic.data(), null, 2)}\n`);
    // (For `npm run docs`: the README's copy of the topic.)
    else if (argv.includes('--markdown')) stdout.write(`${await help.topicMarkdown(topic.name)}\n`);
    else stdout.write(`${(await topic.text()).join('\n')}\n`);
    return EXIT.ok;
  }
  const helpWords = argv.slice(1).filter((a) => !a.startsWith('-'));
  // `orc help --json`: the topics and commands as data.
  if (helpWords.length === 0 && argv.includes('--json')) {
    const commands = await topics.find((t) => t.name === 'commands')!.data();
    stdout.write(
      `${JSON.stringify({ topics: topics.map((t) => ({ name: t.name, summary: t.summary })), commands }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  // `orc help <word>` that is neither a topic nor a command: exit 2, with the nearest of either.
  if (helpWords.length > 0 && !NOUNS.some((n) => n.name === helpWords[0])) {
    const words = [...topics.map((t) => t.name), ...NOUNS.map((n) => n.name)];
    const message = `no help topic or command ${JSON.stringify(helpWords[0])}${didYouMean(helpWords[0]!, words)}`;
    const err = new UsageError(message, 'See `orc help` for the topics and commands.');
    return report(Object.assign(err, { code: 'unknown_topic' }), json, stderr, EXIT.usage);
  }
  return null;
}

/** The root command: orc's description, version, global flags and help text, its output to our streams. */
function newProgram(
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  json: boolean,
  outcome: Outcome,
  topics: Help['TOPICS'],
): Command {
  const program = new Command('orc')
    .description('Drive runs on the Run Orchestration Service, or on its local sandbox')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(false)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void stdout.write(s),
      // Under --json stderr carries only the JSON: a group's help written for a missing verb is left out.
      writeErr: (s) => void (json || stderr.write(s)),
      // Parse errors are told by parseAndRun, as every failure is (text or JSON).
      outputError: (str) => {
        outcome.parseError = str.replace(/^error: /, '').trim();
      },
    });
  for (const [key, s] of Object.entries(GLOBAL_FLAGS)) program.addOption(optionOf(key, s));
  program.addHelpText('after', () =>
    topics.length
      ? `\nHelp topics:\n${topics.map((t) => `  orc help ${t.name.padEnd(12)} ${t.summary}`).join('\n')}\n\nExit codes: 0 ok, 1 failure, 2 usage, 3 refused by the service, 4 auth/config, 5 run ended badly, 6 gate pending, 7 --max-wait ran out, 130 interrupted.\nDocs: README.md, docs/`
      : '',
  );
  return program;
}

function optionOf(key: string, s: FlagDef): Option {
  const opt = new Option(define.commanderFlags(key, s), s.description);
  const d = define.defaultOf(s);
  if (d !== undefined) opt.default(d);
  if (s.type === 'multi') opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
  if (s.hidden) opt.hideHelp();
  return opt;
}

interface Defining {
  /** The help's words for a coding agent, or ''. */
  forAgents: string;
  opts: RunOptions;
  outcome: Outcome;
}

/** Only the invoked noun is loaded and built in full; the others are listed by name and summary, which
 * is all `orc --help` shows. `orc help` builds everything. */
async function defineCommands(program: Command, argv: string[], d: Defining): Promise<void> {
  const invoked = firstCommandWord(argv, GLOBAL_FLAGS);
  const specs = await Promise.all(
    NOUNS.map((n) =>
      invoked === undefined || invoked === 'help' || invoked === n.name ? n.load().then((m) => m.default) : null,
    ),
  );
  NOUNS.forEach((n, i) => {
    const loaded = specs[i];
    if (loaded) defineCommand(program, loaded, d);
    else program.command(n.name).summary(n.summary).description(n.summary);
  });
}

/** A command as its definition declares it: arguments, flags, help; a group its subcommands, a verb its handler. */
function defineCommand(parent: Command, c: CommandDef, d: Defining): void {
  const cmd = parent.command(c.name).summary(c.summary).description(c.summary);
  for (const a of c.args ?? []) cmd.argument(define.usageLine(a));
  for (const [key, s] of Object.entries(c.flags ?? {})) cmd.addOption(optionOf(key, s));
  if (c.examples.length) cmd.addHelpText('after', `\nExamples:\n${c.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  if (c.json && !c.subcommands) cmd.addHelpText('after', `\nWith --json: ${c.json}\n`);
  if (c.more) cmd.addHelpText('after', `\n${c.more}`);
  if (d.forAgents && !c.subcommands) cmd.addHelpText('after', d.forAgents);
  if (c.subcommands) {
    for (const sub of c.subcommands) defineCommand(cmd, sub, d);
    return;
  }
  cmd.action(async (...params: unknown[]) => {
    const self = params[params.length - 1] as Command;
    // Positional arguments keep their places; an optional one not given stays undefined.
    const args = params
      .slice(0, -2)
      .map((v) => (v === undefined ? undefined : Array.isArray(v) ? v.map(String) : String(v)));
    const flags = self.optsWithGlobals() as Record<string, unknown>;
    d.outcome.exitCode = await (d.opts.runParsed ?? execute)(c, args, flags, d.opts);
  });
}

/** Parses argv and runs the command it names; every failure told as text or JSON, and its exit code. */
async function parseAndRun(
  program: Command,
  argv: string[],
  json: boolean,
  stderr: NodeJS.WritableStream,
  outcome: Outcome,
): Promise<number> {
  try {
    // A command word that is not one (`orc sandbox stat`, `orc help run lsit`): exit 2 with the nearest.
    const unknown = unknownCommand(program, argv, GLOBAL_FLAGS);
    if (unknown) return report(unknown, json, stderr, EXIT.usage);
    await program.parseAsync(argv, { from: 'user' });
    return outcome.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return parseFailure(program, argv, err, json, stderr, outcome.parseError);
    return failed(err, json, stderr);
  }
}

/** commander's own error: --help and --version end with 0; every parse error is a usage error (exit 2). */
function parseFailure(
  program: Command,
  argv: string[],
  err: CommanderError,
  json: boolean,
  stderr: NodeJS.WritableStream,
  parseError: string | null,
): number {
  if (err.exitCode === 0) return EXIT.ok;
  // A group without its verb (`orc run`): commander has shown its help on stderr; that is the whole message.
  const at = walk(program, argv, GLOBAL_FLAGS).at;
  if (err.code === 'commander.help') return json ? report(missingVerb(at), json, stderr, EXIT.usage) : EXIT.usage;
  // commander.unknownOption → unknown_option
  const code = err.code.replace(/^commander\./, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  let message: string = parseError ?? err.message.replace(/^error: /, '');
  if (err.code === 'commander.unknownOption') message += flagSuggestion(at, message);
  return report(Object.assign(new UsageError(message), { code }), json, stderr, EXIT.usage);
}

/** The first word that names no command where one is expected, as a usage error naming the nearest. */
function unknownCommand(program: Command, argv: string[], globals: Record<string, FlagDef>): UsageError | null {
  const { at, unknown: word } = walk(program, argv, globals);
  if (word === undefined) return null;
  const names = at.commands.map((c) => c.name());
  const where = at === program ? 'orc' : `orc ${pathOf(at)}`;
  const message = `unknown command ${JSON.stringify(word)} for \`${where}\`${didYouMean(word, names)}`;
  return Object.assign(new UsageError(message, `The commands: ${names.join(', ')}.`), { code: 'unknown_command' });
}

/** `orc run` needs one of its commands: said as data under --json, where its help is not shown. */
function missingVerb(at: Command): UsageError {
  const names = at.commands.map((c) => c.name());
  const where = at.parent ? `orc ${pathOf(at)}` : 'orc';
  const message = `\`${where}\` needs a command: ${names.join(', ')}`;
  return Object.assign(new UsageError(message, `See \`${where} --help\`.`), { code: 'missing_command' });
}

/** The command the words of argv lead to, and the first word that names none where one is expected. */
function walk(program: Command, argv: string[], globals: Record<string, FlagDef>): { at: Command; unknown?: string } {
  const takesValue = valueFlags(globals);
  let at = program;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (takesValue.has(word)) i++;
    if (word.startsWith('-')) continue;
    if (at.commands.length === 0) break; // the rest are arguments
    const next = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) return { at, unknown: word };
    at = next;
  }
  return { at };
}

/** "; did you mean --status?" for commander's "unknown option '--stauts'": the nearest flag of the command or its
 * parents. */
function flagSuggestion(at: Command, message: string): string {
  const typed = /'(--?[^'=]+)/.exec(message)?.[1];
  if (!typed) return '';
  const flags: string[] = [];
  for (let c: Command | null = at; c; c = c.parent) {
    for (const o of c.options) if (!o.hidden && o.long) flags.push(o.long.slice(2));
  }
  const near = closest(typed.replace(/^--?/, ''), flags);
  return near ? `; did you mean --${near}?` : '';
}

function pathOf(c: Command): string {
  const names: string[] = [];
  for (let at: Command | null = c; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The first word of argv that is not an option or the value of a global option that takes one. */
function firstCommandWord(argv: string[], globals: Record<string, FlagDef>): string | undefined {
  const takesValue = valueFlags(globals);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (takesValue.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/** The global flags that take a value (`--profile`, `--base-url`, …), as typed: the word after one is its value. */
function valueFlags(globals: Record<string, FlagDef>): Set<string> {
  return new Set(
    Object.entries(globals)
      .filter(([, s]) => s.type !== 'bool')
      .map(([k]) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`),
  );
}
