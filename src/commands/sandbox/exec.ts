// `orc sandbox exec [flags] -- <command…>`: a fresh in-memory sandbox on a free port, the command run with
// ORC_BASE_URL, ORC_SANDBOX_URL and ORC_API_KEY pointing at it, the sandbox stopped, and orc exiting with
// the command's status: one line for a CI job.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { ArgsOf, FlagsOf } from '../define.js';
import { newTestKey } from '../../config/sandbox-state.js';
import type { Context } from '../context.js';
import { EnvironmentError, UsageError } from '../../exit/errors.js';
import type { exec as def } from './command.js';
import { steering } from './start.js';

export default async function exec(
  ctx: Context,
  [command]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const argv = command ?? [];
  if (argv.length === 0) throw new UsageError('give the command to run after --: orc sandbox exec -- npm test');
  const { startSandbox } = await import('../../sandbox/index.js');
  // its own key, known only to the command it runs
  const apiKey = newTestKey();
  const sandbox = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    dataPath: ':memory:',
    apiKey,
    stageMs: flags.stageMs,
    retryBaseMs: flags.retryBaseMs,
    rateLimit: flags.rateLimit,
    seed: flags.seed,
    ipaMib: flags.ipaMib,
    version: ctx.version,
    log: (line) => ctx.io.info(line),
    ...(await steering(flags.clock, flags.import, ctx.clock)),
  });
  try {
    ctx.io.info(`orc: sandbox at ${sandbox.url} for \`${argv.join(' ')}\``);
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: 'inherit',
      env: { ...ctx.env, ORC_BASE_URL: sandbox.url, ORC_SANDBOX_URL: sandbox.url, ORC_API_KEY: apiKey },
    });
    // Ctrl-C reaches the command from the terminal; other stop signals are passed on to it.
    const pass = () =>
      void (
        ctx.signal.reason !== 'SIGINT' && child.kill((ctx.signal.reason as NodeJS.Signals | undefined) ?? 'SIGTERM')
      );
    ctx.signal.addEventListener('abort', pass, { once: true });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'ENOENT' ? new EnvironmentError(`cannot run ${argv[0]}: no such command`) : err),
      );
      child.once('exit', (c, s) => resolve([c, s]));
    });
    ctx.signal.removeEventListener('abort', pass);
    return code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
  } finally {
    await sandbox.close();
  }
}
