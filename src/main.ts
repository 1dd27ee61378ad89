// The entry point, kept tiny: `orc --version` is asked by scripts and shells all the time and is answered
// here before anything else loads; everything else is src/cli/ (fast.ts, else program.ts), loaded after.
// This is the only place that exits.
import type { RunOptions } from './cli/execute.js';

export type { RunOptions };
declare const __ORC_VERSION__: string;

export async function main(argv: string[]): Promise<never> {
  // A reader that goes away (`orc … --json | head -1`) ends orc quietly, as it does any Unix filter: what it
  // wanted was read. stderr closing early is not worth a word either (there is no one to say it to).
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  // A prompt whose input ended (Ctrl-D) can leave nothing to wait on: that is an interruption, said so.
  let settled = false;
  process.once('beforeExit', () => {
    if (settled) return;
    process.stderr.write('orc: input ended; nothing more was done\n');
    process.exit(130);
  });
  const code = await run(argv);
  settled = true;
  await drain(process.stdout);
  await drain(process.stderr);
  process.exit(code);
}

/** Runs orc and answers its exit code. Tests call this in process with streams, env and a clock of their own. */
export async function run(argv: string[], opts: RunOptions = {}): Promise<number> {
  if (
    argv.length > 0 &&
    argv.every((a) => a === '--version' || a === '-V' || a === '--json') &&
    argv.some((a) => a !== '--json')
  ) {
    const version = typeof __ORC_VERSION__ === 'string' ? __ORC_VERSION__ : '0.0.0-dev';
    (opts.stdout ?? process.stdout).write(
      argv.includes('--json') ? `${JSON.stringify({ version })}\n` : `${version}\n`,
    );
    return 0;
  }
  // Shell completion asks for run ids and the like: answered without the command table (src/cli/complete.ts).
  if (argv[0] === '__complete') return (await import('./cli/complete.js')).complete(argv.slice(1), opts);
  // A plain command line runs without commander (src/cli/fast.ts); help, errors and the rest go through it.
  const direct = await (await import('./cli/fast.js')).runDirect(argv, opts);
  if (direct !== null) return direct;
  return (await import('./cli/program.js')).runProgram(argv, opts);
}

function drain(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (!stream.writableNeedDrain) return resolve();
    stream.once('drain', () => resolve());
  });
}
