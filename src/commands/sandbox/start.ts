// `orc sandbox start`: the local service in the foreground, or in the background with --detach.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, accessSync, constants } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { EnvironmentError, UsageError } from '../../errors.js';
import { isLoopbackHost } from '../../contract/keys.js';
import type { SandboxOptions } from '../../sandbox/server.js';
import { liveSandbox, logPath, removeState, writeState } from '../../config/sandbox-state.js';

interface StartFlags {
  host: string;
  port: string;
  apiKey: string;
  stageMs: string;
  signedUrlTtl: string;
  retryBaseMs: string;
  rateLimit: string;
  seed: string;
  keepaliveMs: string;
  dataDir?: string;
  memory?: boolean;
  detach?: boolean;
  json?: boolean;
}

function intFlag(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'up' : max}, not ${JSON.stringify(value)}`);
  return n;
}

/** Checks every flag before anything starts, naming the flag at fault. */
export function parseStartFlags(flags: StartFlags, configDir: string): Omit<SandboxOptions, 'version'> & { dataDir: string | null } {
  if (!/^sk_test_[A-Za-z0-9_]{4,}$/.test(flags.apiKey))
    throw new UsageError(
      flags.apiKey.startsWith('sk_live_') ? '--api-key: the sandbox takes a test key (sk_test_…), never a live key' : '--api-key must look like sk_test_<letters, digits or _>',
    );
  if (flags.memory && flags.dataDir) throw new UsageError('--memory and --data-dir do not go together: --memory keeps nothing on disk');
  const host = flags.host.trim();
  if (!host) throw new UsageError('--host must not be empty');
  const dataDir = flags.memory ? null : resolve(flags.dataDir ?? join(configDir, 'sandbox'));
  return {
    host,
    port: intFlag('--port', flags.port, 0, 65535),
    apiKey: flags.apiKey,
    stageMs: intFlag('--stage-ms', flags.stageMs, 1),
    signedUrlTtl: intFlag('--signed-url-ttl', flags.signedUrlTtl, 1),
    retryBaseMs: intFlag('--retry-base-ms', flags.retryBaseMs, 1),
    rateLimit: intFlag('--rate-limit', flags.rateLimit, 0),
    seed: intFlag('--seed', flags.seed, 0),
    keepAliveMs: intFlag('--keepalive-ms', flags.keepaliveMs, 10),
    dataDir,
    dataPath: dataDir ? join(dataDir, 'sandbox.db') : ':memory:',
  };
}

export default async function start(ctx: Context, _args: string[], flags: StartFlags): Promise<number> {
  const opts = parseStartFlags(flags, ctx.configDir);
  if (!isLoopbackHost(opts.host))
    ctx.io.warn(`listening on ${opts.host}, not loopback: anyone who can reach this address can use the sandbox with its test key`);
  if (opts.dataDir) prepareDataDir(opts.dataDir);
  if (flags.detach) return detach(ctx, flags);

  const { startSandbox } = await import('../../sandbox/server.js');
  let sandbox;
  try {
    sandbox = await startSandbox({ ...opts, version: ctx.version });
  } catch (err) {
    throw explainStartError(err, opts);
  }
  // Listen for the signals before saying "listening": a script may send one as soon as it reads that line.
  const stopped = new Promise<void>((done) => {
    const stop = (signal: string) => {
      ctx.io.info(`${signal}: stopping the sandbox`);
      done();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGHUP', () => stop('SIGHUP'));
  });
  const others = await liveSandbox(ctx.configDir);
  // Record this sandbox for `status` and `stop`, unless another one already holds the record.
  const recorded = !others;
  if (recorded)
    writeState(ctx.configDir, { pid: process.pid, url: sandbox.url, data: opts.dataPath, log: process.send ? logPath(ctx.configDir) : null, started_at: new Date().toISOString(), detached: Boolean(process.send), api_key: opts.apiKey });
  // The one line a script waits for (CONTRACT.md); under --json, one JSON line instead.
  if (ctx.io.json) ctx.io.streams.stdout.write(ctx.io.jsonLine({ listening: true, url: sandbox.url, pid: process.pid, data: opts.dataPath }));
  else ctx.io.out(`listening on ${sandbox.url}`);
  ctx.io.info(`test key ${opts.apiKey} · ${opts.dataDir ? `data in ${opts.dataPath}` : 'in memory'} · stage ${opts.stageMs} ms · Ctrl-C to stop`);
  process.send?.({ type: 'listening', url: sandbox.url });

  await stopped;
  await sandbox.close();
  if (recorded) removeState(ctx.configDir, process.pid);
  return 0;
}

function prepareDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new EnvironmentError(`cannot write the sandbox data folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'Choose another with --data-dir, or use --memory.');
  }
}

function explainStartError(err: unknown, opts: { host: string; port: number; dataPath: string }): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ERR_SANDBOX_NO_SQLITE') return new EnvironmentError((err as Error).message, 'Use the Node that `npm install` put in node_modules/.bin (npx orc …), or any Node 22.13+.');
  if (code === 'EADDRINUSE')
    return new EnvironmentError(`port ${opts.port} on ${opts.host} is already in use`, 'Is a sandbox already running? See `orc sandbox status`, or pick another with --port (0 picks a free one).');
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new EnvironmentError(`cannot listen on ${opts.host}: no such local address`);
  if (code === 'EACCES') return new EnvironmentError(`not allowed to listen on ${opts.host}:${opts.port}`, 'Ports below 1024 need privileges; pick another with --port.');
  if (code?.startsWith('ERR_SQLITE') || /sqlite|database/i.test((err as Error).message))
    return new EnvironmentError(`cannot open the sandbox database ${opts.dataPath}: ${(err as Error).message}`, 'Choose another folder with --data-dir, or use --memory.');
  return err as Error;
}

/** Starts the same command in the background and returns once it listens (or says why it could not). */
async function detach(ctx: Context, flags: StartFlags): Promise<number> {
  const running = await liveSandbox(ctx.configDir);
  if (running) throw new EnvironmentError(`a sandbox is already running at ${running.url} (pid ${running.pid})`, 'Stop it with `orc sandbox stop`, or use it as it is.');
  const url = await spawnDetached(ctx, flags);
  if (ctx.io.json) ctx.io.writeJson({ listening: true, url, detached: true, log: logPath(ctx.configDir) });
  else ctx.io.out(`listening on ${url}`);
  ctx.io.info(`sandbox running in the background; log: ${logPath(ctx.configDir)}; stop it with \`orc sandbox stop\``);
  return 0;
}

export async function spawnDetached(ctx: Context, flags: Partial<StartFlags>): Promise<string> {
  mkdirSync(ctx.configDir, { recursive: true, mode: 0o700 });
  const log = logPath(ctx.configDir);
  const fd = openSync(log, 'a', 0o600);
  const args = [ctx.launcher, 'sandbox', 'start'];
  const forward: Array<[keyof StartFlags, string]> = [
    ['host', '--host'], ['port', '--port'], ['apiKey', '--api-key'], ['stageMs', '--stage-ms'], ['signedUrlTtl', '--signed-url-ttl'],
    ['retryBaseMs', '--retry-base-ms'], ['rateLimit', '--rate-limit'], ['seed', '--seed'], ['keepaliveMs', '--keepalive-ms'], ['dataDir', '--data-dir'],
  ];
  for (const [key, flag] of forward) if (typeof flags[key] === 'string') args.push(flag, flags[key] as string);
  if (flags.memory) args.push('--memory');
  const start = readFileSync(log).length;
  const child = spawn(process.execPath, [...process.execArgv, ...args], {
    detached: true,
    stdio: ['ignore', fd, fd, 'ipc'],
    env: { ...ctx.env, ORC_CONFIG_DIR: ctx.configDir },
  });
  closeSync(fd);
  try {
    return await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new EnvironmentError(`the sandbox did not start within 15 s; see ${log}`)), 15_000);
      child.once('message', (m: { type?: string; url?: string }) => {
        if (m?.type === 'listening' && m.url) {
          clearTimeout(timer);
          resolveUrl(m.url);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        const said = readFileSync(log, 'utf8').slice(start).trim().split('\n').filter(Boolean);
        const why = said.filter((l) => l.startsWith('orc:')).pop() ?? said.pop() ?? `exit code ${code}`;
        reject(new EnvironmentError(`the sandbox could not start: ${why.replace(/^orc: /, '')}`, `Log: ${log}`));
      });
    });
  } finally {
    if (child.connected) child.disconnect();
    child.unref();
  }
}
