// `orc sandbox start`: the local service in the foreground, or in the background with --detach.
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnDetached } from '../../config/sandbox-launcher.js';
import {
  isTestKey,
  liveSandbox,
  logPath,
  readState,
  removeState,
  sandboxKey,
  writeState,
} from '../../config/sandbox-state.js';
import { isLoopbackHost, redactKey } from '../../contract/keys.js';
import type { Context } from '../context.js';
import { EnvironmentError, UsageError } from '../../exit/errors.js';
import { formatDuration } from '../../lib/duration.js';
import { processStartTime } from '../../lib/pid.js';
import { KNOB_NAMES } from '../../contract/sandbox-knobs.js';
import type { RunningSandbox, SandboxOptions, SandboxTls } from '../../sandbox/index.js';
import type { FlagsOf } from '../define.js';
import type { start as def } from './command.js';

type StartFlags = FlagsOf<typeof def>;

/** Checks what the flag kinds cannot, before anything starts, naming the flag at fault. */
export function sandboxOptions(
  flags: StartFlags,
  configDir: string,
  env: NodeJS.ProcessEnv,
): Omit<
  SandboxOptions,
  'version' | 'log' | 'clock' | 'bodyTimeoutMs' | 'headersTimeoutMs' | 'maxEventStreams' | 'tls' | 'apiKey'
> & { apiKey: string | null; dataDir: string | null; tlsDir: string | null } {
  // No key given: the sandbox's own (sandboxKey), which no one else on the machine knows.
  const apiKey = flags.apiKey ?? env.ORC_SANDBOX_API_KEY ?? null;
  const from = flags.apiKey !== undefined ? '--api-key' : 'ORC_SANDBOX_API_KEY';
  if (apiKey !== null && !isTestKey(apiKey))
    throw new UsageError(
      apiKey.startsWith('sk_live_')
        ? `${from}: the sandbox takes a test key (sk_test_…), never a live key`
        : `${from} must look like sk_test_<letters, digits or _>`,
    );
  if (flags.memory && flags.dataDir)
    throw new UsageError('--memory and --data-dir do not go together: --memory keeps nothing on disk');
  const host = flags.host.trim();
  if (!host) throw new UsageError('--host must not be empty');
  const dataDir = flags.memory ? null : resolve(flags.dataDir ?? join(configDir, 'sandbox'));
  let liveKey: string | undefined;
  if (flags.standInLive) {
    if (!flags.tls)
      throw Object.assign(new UsageError('--stand-in-live needs --tls: a live key travels only over TLS'), {
        field: '--stand-in-live',
      });
    liveKey = env.ORC_SANDBOX_LIVE_KEY?.trim();
    if (!liveKey)
      throw Object.assign(
        new UsageError(
          '--stand-in-live: set ORC_SANDBOX_LIVE_KEY to the live key the stand-in accepts (in the environment, never in argv)',
        ),
        { field: '--stand-in-live' },
      );
    if (!/^sk_live_[A-Za-z0-9_]{4,}$/.test(liveKey))
      throw Object.assign(new UsageError('ORC_SANDBOX_LIVE_KEY must look like sk_live_<letters, digits or _>'), {
        field: '--stand-in-live',
      });
  }
  // Each knob's flag is its option, by the same name (src/contract/sandbox-knobs.ts).
  const knobs = Object.fromEntries(KNOB_NAMES.map((k) => [k, flags[k]])) as {
    [K in (typeof KNOB_NAMES)[number]]: StartFlags[K];
  };
  // The CA lives in the data folder; a sandbox in memory keeps it in the config folder, to be trusted once.
  const tlsDir = flags.tls ? join(dataDir ?? configDir, 'tls') : null;
  return {
    ...knobs,
    host,
    apiKey,
    dataDir,
    dataPath: dataDir ? join(dataDir, 'sandbox.db') : ':memory:',
    tlsDir,
    ...(liveKey ? { liveKey } : {}),
  };
}

export default async function start(ctx: Context, _args: [], flags: StartFlags): Promise<number> {
  const given = sandboxOptions(flags, ctx.configDir, ctx.env);
  if (!isLoopbackHost(given.host))
    ctx.io.warn(
      `listening on ${given.host}, not loopback: anyone who can reach this address can use the sandbox with its test key`,
    );
  // A snapshot to import is read and checked before anything is made (the background one reads its own).
  const steer = flags.detach ? null : await steering(flags.clock, flags.import, ctx.clock);
  if (given.dataDir) prepareDataDir(given.dataDir);
  const opts = { ...given, apiKey: given.apiKey ?? ownKey(given.dataDir) };
  if (flags.detach || !steer) return detach(ctx, flags, opts.apiKey);

  const { sandbox, tls } = await launch(ctx, opts, steer);
  if (flags.verbose) {
    const { entryLine } = await import('./logs.js');
    sandbox.journal.follow((e) => ctx.io.info(entryLine(e)));
  }
  // Listen for the signals before saying "listening": a script may send one as soon as it reads that line.
  const stopped = new Promise<void>((done) =>
    ctx.signal.addEventListener(
      'abort',
      () => {
        ctx.io.info(`${String(ctx.signal.reason)}: stopping the sandbox`);
        done();
      },
      { once: true },
    ),
  );
  const recorded = await record(ctx, sandbox, opts, tls);
  announce(ctx, sandbox, opts, tls);
  process.send?.({ type: 'listening', url: sandbox.url });

  await stopped;
  await sandbox.close();
  if (recorded) removeState(ctx.configDir, process.pid);
  return 0;
}

type StartOptions = ReturnType<typeof sandboxOptions> & { apiKey: string };

/** The sandbox started in this process, with its certificates under --tls. */
async function launch(
  ctx: Context,
  opts: StartOptions,
  steer: Awaited<ReturnType<typeof steering>>,
): Promise<{ sandbox: RunningSandbox; tls: SandboxTls | null }> {
  const young = capYoungGeneration();
  const { startSandbox, sandboxTls, listenProblem } = await import('../../sandbox/index.js');
  const tls = opts.tlsDir ? sandboxTls(opts.tlsDir, [opts.host], ctx.clock.now()) : null;
  try {
    const sandbox = await startSandbox({
      ...opts,
      ...(tls ? { tls } : {}),
      ...steer,
      version: ctx.version,
      log: (line) => ctx.io.info(line),
    });
    return { sandbox, tls };
  } catch (err) {
    throw explainStartError(err, opts, listenProblem);
  } finally {
    young.loaded();
  }
}

/** This sandbox recorded for `status` and `stop`, unless another one already holds the record. */
async function record(
  ctx: Context,
  sandbox: RunningSandbox,
  opts: StartOptions,
  tls: SandboxTls | null,
): Promise<boolean> {
  if (await liveSandbox(ctx.configDir)) return false;
  await writeState(ctx.configDir, {
    pid: process.pid,
    url: sandbox.url,
    data: opts.dataPath,
    log: process.send ? logPath(ctx.configDir) : null,
    started_at: new Date(ctx.clock.now()).toISOString(),
    detached: Boolean(process.send),
    api_key: opts.apiKey,
    pid_started: processStartTime(process.pid),
    ...(tls ? { ca_file: tls.caFile } : {}),
  });
  return true;
}

/** The one line a script waits for (CONTRACT.md), under --json one JSON line instead; then the rest on stderr. */
function announce(ctx: Context, sandbox: RunningSandbox, opts: StartOptions, tls: SandboxTls | null): void {
  if (ctx.io.json)
    ctx.io.streams.stdout.write(
      ctx.io.jsonLine({
        listening: true,
        url: sandbox.url,
        pid: process.pid,
        data: opts.dataPath,
        ...(tls ? { ca_file: tls.caFile } : {}),
      }),
    );
  else ctx.io.out(`listening on ${sandbox.url}`);
  // The key is shown redacted here and in the log: the log is a file others may be shown.
  const where = opts.dataDir ? `data in ${opts.dataPath}` : 'in memory';
  ctx.io.info(`test key ${redactKey(opts.apiKey)} · ${where} · stage ${stageWords(opts.stageMs)} · Ctrl-C to stop`);
  if (tls?.newCa)
    ctx.io.info(
      `a new CA was made for this sandbox's names (${tls.caFile}): a client that trusted the one before trusts this one anew`,
    );
  if (tls)
    ctx.io.info(
      `${trustLine(tls.caFile)}${opts.liveKey ? ' · standing in for the live service: the live key in ORC_SANDBOX_LIVE_KEY is accepted too' : ''}`,
    );
  ctx.io.info(`web console: ${sandbox.consoleLink()} (works once; \`orc sandbox console\` gives another)`);
}

/** What a --tls start says of its CA: where it is, and how to trust it. */
function trustLine(caFile: string): string {
  return `https, signed by the sandbox's own CA: ${caFile}; orc trusts it for this sandbox; elsewhere, NODE_EXTRA_CA_CERTS=${caFile}`;
}

function ownKey(dataDir: string | null): string {
  try {
    return sandboxKey(dataDir);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ERR_SANDBOX_KEY' ? e.message : (e.code ?? e.message);
    throw new EnvironmentError(
      `cannot keep the sandbox's key in ${dataDir}: ${why}`,
      'Give it a key with --api-key or ORC_SANDBOX_API_KEY, or use --memory.',
    );
  }
}

function prepareDataDir(dir: string): void {
  try {
    // Folders the sandbox makes (the config folder, its sandbox/ data folder, a new --data-dir) hold its
    // secrets: 0700, as orc doctor expects. A folder that is already there keeps its mode.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new EnvironmentError(
      `cannot write the sandbox data folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'Choose another with --data-dir, or use --memory.',
    );
  }
}

function explainStartError(
  err: unknown,
  opts: { host: string; port: number; dataPath: string },
  listenProblem: typeof import('../../sandbox/index.js').listenProblem,
): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ERR_SANDBOX_NOT_EMPTY')
    return new EnvironmentError((err as Error).message, 'Import into --memory, or into a new --data-dir.');
  if (code === 'ERR_SANDBOX_LOCKED')
    return new EnvironmentError(
      (err as Error).message,
      'Stop that one (`orc sandbox stop`), use it as it is, or give this one another --data-dir (or --memory).',
    );
  if (code === 'ERR_SANDBOX_CORRUPT')
    return new EnvironmentError(
      (err as Error).message,
      'Move the folder away to start afresh, or use another --data-dir (or --memory).',
    );
  if (code === 'ERR_SANDBOX_NO_SQLITE')
    return new EnvironmentError(
      (err as Error).message,
      'Use the Node that `npm install` put in node_modules/.bin (npx orc …), or any Node 22.13+.',
    );
  const listen = listenProblem(err, opts);
  if (listen)
    return new EnvironmentError(
      listen.message,
      code === 'EADDRINUSE' ? `Is a sandbox already running? See \`orc sandbox status\`. ${listen.hint}` : listen.hint,
    );
  if (code?.startsWith('ERR_SQLITE') || /sqlite|database/i.test((err as Error).message))
    return new EnvironmentError(
      `cannot open the sandbox database ${opts.dataPath}: ${(err as Error).message}`,
      'Choose another folder with --data-dir, or use --memory.',
    );
  return err as Error;
}

/** Starts the same command in the background and returns once it listens (or says why it could not). */
async function detach(ctx: Context, flags: StartFlags, apiKey: string): Promise<number> {
  const running = await liveSandbox(ctx.configDir);
  if (running)
    throw new EnvironmentError(
      `a sandbox is already running at ${running.url} (pid ${running.pid})`,
      'Stop it with `orc sandbox stop`, or use it as it is.',
    );
  const url = await spawnDetached(
    { configDir: ctx.configDir, env: ctx.env, launcher: ctx.launcher },
    {
      ...Object.fromEntries(KNOB_NAMES.map((k) => [k, String(flags[k])])),
      apiKey,
      clock: flags.clock,
      ...(flags.import ? { import: resolve(flags.import) } : {}),
      ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
      ...(flags.memory ? { memory: true } : {}),
      ...(flags.tls ? { tls: true } : {}),
      ...(flags.standInLive ? { standInLive: true } : {}),
    },
  );
  // The same fields as a foreground start's line (pid, data), from the record the sandbox wrote for itself.
  const state = readState(ctx.configDir);
  if (ctx.io.json)
    ctx.io.writeJson({
      listening: true,
      url,
      pid: state?.pid ?? null,
      data: state?.data ?? null,
      detached: true,
      log: logPath(ctx.configDir),
      ...(state?.ca_file ? { ca_file: state.ca_file } : {}),
    });
  else ctx.io.out(`listening on ${url}`);
  ctx.io.info(`sandbox running in the background; log: ${logPath(ctx.configDir)}; stop it with \`orc sandbox stop\``);
  if (state?.ca_file) ctx.io.info(trustLine(state.ca_file));
  ctx.io.info('web console: `orc sandbox console`');
  return 0;
}

/**
 * V8 grows the young generation with what survives, up to 64 MB of semi-spaces here, and never gives it
 * back: loading 100,000 runs at start, then serving their pages, grew the sandbox's RSS by much more than half
 * for garbage alone. Held at its first size while the store loads, then let grow to 16 MB and held there:
 * a server under load (100 webhooks on every event) spent several times as long collecting with no cap at all
 * (both measured: docs/figures.md).
 */
function capYoungGeneration(capMb = 32): { loaded(): void } {
  const v8 = process.getBuiltinModule('node:v8') as typeof import('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  return {
    loaded() {
      v8.setFlagsFromString('--semi-space-growth-factor=2');
      const watch = setInterval(() => {
        const size = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
        if (size < capMb * 1024 * 1024) return;
        v8.setFlagsFromString('--semi-space-growth-factor=1');
        clearInterval(watch);
      }, 50);
      watch.unref();
    },
  };
}

/** The clocks and the snapshot a start asks for: with --clock manual, the service on a clock that moves
 * only when advanced (the network's timeouts stay on real time); with --import, the snapshot read and
 * checked before anything starts. */
export async function steering(mode: string, importFile: string | undefined, real: import('../../lib/clock.js').Clock) {
  const { startClocks, readSnapshotFile } = await import('../../sandbox/index.js');
  let importSnapshot;
  if (importFile !== undefined) {
    try {
      importSnapshot = readSnapshotFile(importFile);
    } catch (err) {
      throw new UsageError(`--import ${importFile}: ${(err as Error).message}`);
    }
  }
  return {
    ...startClocks(mode === 'manual' ? 'manual' : 'real', real, importSnapshot),
    ...(importSnapshot ? { importSnapshot } : {}),
  };
}

/** A stage's length as a person reads it: `300 ms` for the quick ones tests use, else `4 s`, `3 h`. */
function stageWords(ms: number): string {
  return ms < 1000 ? `${ms} ms` : formatDuration(ms);
}
