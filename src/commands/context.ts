// What a command may use, built once per invocation: streams, environment, clock, config folder, and
// lazily the resolved target (profile, URL, key), the API client and the prompter. Nothing here exits.
// The target and the client are what nearly every command asks for: imported statically (this module is
// loaded on demand, by the program), which bundles into fewer chunks for Node to load than import()s do.
import { createApi, type Api } from '../api/index.js';
import { traceFrom } from '../api/trace.js';
import type { Unknown } from '../contract/unknowns.js';
import { sleep, systemClock, type Clock } from '../lib/clock.js';
import type { GlobalFlagValues } from './globals.js';
import { configDir } from '../config/paths.js';
import { resolveTarget, type Target } from '../config/target.js';
import { IO, type Streams } from '../ui/io.js';
import type { Prompter } from '../ui/prompt.js';
import { VERSION } from '../lib/version.js';

export type GlobalFlags = Partial<GlobalFlagValues>;

export interface Context {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  configDir: string;
  version: string;
  flags: GlobalFlags;
  /** The orc launcher, for commands that start orc again in the background. */
  launcher: string;
  target(): Promise<Target>;
  api(): Promise<Api>;
  prompter(): Promise<Prompter>;
  /**
   * Aborted when the user or the system asks orc to stop: SIGINT (Ctrl-C), SIGTERM or SIGHUP; its reason is
   * the signal's name. The one way interrupts reach commands: the handlers are installed when a command
   * first looks at it, and removed when the command ends (dispose).
   */
  readonly signal: AbortSignal;
  /** Ends what the context set up for the command (the signal handlers). */
  dispose(): void;
  /** A failure said better where the context knows why: another program where the built-in sandbox should be. */
  retell(err: unknown): Promise<unknown>;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface ContextExtras {
  clock?: Clock;
  launcher?: string;
}

export function createContext(
  flags: GlobalFlags,
  streams: Streams = process,
  env: NodeJS.ProcessEnv = process.env,
  extras: ContextExtras = {},
): Context {
  const io = new IO(streams, {
    json: Boolean(flags.json),
    noInput: flags.input === false,
    env,
    accessible: Boolean(flags.accessible),
  });
  let target: Promise<Target> | undefined;
  let api: Promise<Api> | undefined;
  let prompter: Promise<Prompter> | undefined;
  const stop = new StopSignals();
  const ctx: Context = {
    get signal() {
      return stop.signal;
    },
    dispose: () => stop.dispose(),
    retell: async (err) => retell(target ? await target.catch(() => null) : null, err),
    io,
    env,
    clock: extras.clock ?? systemClock,
    configDir: configDir(env),
    version: VERSION,
    flags,
    launcher: extras.launcher ?? process.argv[1] ?? 'orc',
    target() {
      target ??= resolveTarget(
        { profile: flags.profile, live: flags.live, baseUrl: flags.baseUrl },
        env,
        ctx.configDir,
      );
      return target;
    },
    api() {
      api ??= ctx.target().then((t) => clientFor(ctx, t));
      return api;
    },
    prompter() {
      prompter ??= import('../ui/prompt.js').then(async (m) =>
        io.accessible
          ? (await import('../ui/line-prompt.js')).createLinePrompter(io, m.createPrompter(io))
          : m.createPrompter(io),
      );
      return prompter;
    },
  };
  return ctx;
}

/** The interrupt signals, turned into one AbortSignal: handlers installed when a command first looks at it. */
class StopSignals {
  private stop: { controller: AbortController; handlers: Array<[NodeJS.Signals, () => void]> } | undefined;

  get signal(): AbortSignal {
    if (!this.stop) {
      const controller = new AbortController();
      const handlers = STOP_SIGNALS.map((s): [NodeJS.Signals, () => void] => [s, () => controller.abort(s)]);
      for (const [s, fn] of handlers) process.on(s, fn);
      this.stop = { controller, handlers };
    }
    return this.stop.controller.signal;
  }

  dispose(): void {
    for (const [s, fn] of this.stop?.handlers ?? []) process.off(s, fn);
  }
}

/** The API client for the target, with the live banner said first, and the sandbox started when none answers. */
async function clientFor(ctx: Context, t: Target): Promise<Api> {
  const { io, flags, env } = ctx;
  const where = ` · profile ${t.profile} · ${t.baseUrl}`;
  if (t.mode === 'live') {
    const style = await import('../ui/style.js').then((m) => m.loadStyle(io));
    tell(io, flags, 'notice', `LIVE${where}`, `${style.alarm('LIVE')}${where}`);
  }
  return createApi({
    baseUrl: t.baseUrl,
    apiKey: t.key,
    userAgent: `orc/${VERSION} node/${process.versions.node}`,
    clock: ctx.clock,
    env,
    ...(t.caFile ? { caFile: t.caFile } : {}),
    trace: traceFrom(env.TRACEPARENT, env.TRACESTATE),
    deadlineMs: Math.round((flags.timeout ?? 120) * 1000),
    notice: (line) => tell(io, flags, 'notice', line, `orc: ${line}`),
    ...(flags.debug ? { debug: (line: string) => tell(io, flags, 'debug', line) } : {}),
    ...(tellsUnknowns(flags, env) ? { onUnknown: unknownsTeller(io) } : {}),
    ...(t.autoStartSandbox ? { onConnectionRefused: () => startLocalSandbox(ctx) } : {}),
  });
}

/** A failure against the default sandbox address said better: another program answers where the sandbox should. */
async function retell(t: Target | null, err: unknown): Promise<unknown> {
  if (!t?.autoStartSandbox) return err;
  const { ApiError, UnexpectedResponseError } = await import('../api/errors.js');
  if (!(err instanceof UnexpectedResponseError || (err instanceof ApiError && !err.requestId))) return err;
  // The sandbox answers /healthz with its pid; anything else at its address is another program. Asked
  // through the client's exchange with no key (none goes to that program again) and no retry, over https
  // trusting the CA of a sandbox started with --tls.
  const { healthz } = await import('../config/sandbox-state.js');
  const ours = typeof (await healthz(t.baseUrl, 2_000, t.caFile))?.pid === 'number';
  if (ours) return err;
  const port = new URL(t.baseUrl).port;
  const other = Number(port) + 1;
  const { EnvironmentError } = await import('../exit/errors.js');
  return new EnvironmentError(
    `something other than the orc sandbox answers at ${t.baseUrl} (${(err as Error).message.split('\n')[0]})`,
    `Stop what listens on port ${port}, or give the sandbox another port: \`ORC_SANDBOX_PORT=${other} orc …\` (orc then starts and uses a sandbox there), or \`orc sandbox start --detach --port ${other}\` with ORC_BASE_URL=http://127.0.0.1:${other}.`,
  );
}

/** A notice (a retry, the live banner) or a --debug line, on stderr: under --json as a JSON line (IO). */
function tell(io: IO, flags: GlobalFlags, kind: 'notice' | 'debug', line: string, shown = line): void {
  if (kind === 'debug') io.debug(flags.json ? line : shown);
  else io.info(flags.json ? line : shown);
}

/** --debug or ORC_TELL_UNKNOWN (set, and not 0 or false): tell what the tolerant reader let pass. */
function tellsUnknowns(flags: GlobalFlags, env: NodeJS.ProcessEnv): boolean {
  const set = env.ORC_TELL_UNKNOWN;
  return Boolean(flags.debug) || (set !== undefined && set !== '' && set !== '0' && set !== 'false');
}

/**
 * Each unknown field, status, stage, event kind or error code one warning tells, once per command (by kind, path
 * and value), when first met: a long `watch` says it then, not when it is stopped.
 */
function unknownsTeller(io: IO): (where: string, found: Unknown[]) => void {
  const told = new Set<string>();
  const fresh = (u: Unknown) => {
    const key = `${u.kind}\u0000${u.path}\u0000${JSON.stringify(u.value) ?? ''}`;
    return !told.has(key) && Boolean(told.add(key));
  };
  const said = (u: Unknown) =>
    u.kind === 'field' ? `${u.path} (a field)` : `${u.path} ${shortJson(u.value)} (a value)`;
  return (where, found) => {
    const news = found.filter(fresh);
    if (news.length === 0) return;
    io.warn(`the service sent what orc does not know (it let it pass): ${where} ${news.map(said).join('; ')}`, {
      where,
      unknowns: news,
    });
  };
}

const shortJson = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
};

/** Whether the sandbox at `url` answers before `ms` have passed, asked every 100 ms. */
async function answersWithin(url: string, ms: number, clock: Clock): Promise<boolean> {
  const { answers } = await import('../config/sandbox-state.js');
  const deadline = clock.now() + ms;
  for (;;) {
    if (await answers(url, 1000)) return true;
    if (clock.now() > deadline) return false;
    await sleep(clock, 100);
  }
}

/** With nothing configured and nothing answering, orc starts the local sandbox and says so. */
async function startLocalSandbox(ctx: Context): Promise<boolean> {
  const [{ spawnDetached }, { startSpinner }, { defaultSandboxPort }] = await Promise.all([
    import('../config/sandbox-launcher.js'),
    import('../ui/spinner.js'),
    import('../config/sandbox-defaults.js'),
  ]);
  const spinner = await startSpinner(
    ctx.io,
    'no sandbox answered at the default address; starting one in the background…',
  );
  try {
    const url = await spawnDetached(
      { configDir: ctx.configDir, env: ctx.env, launcher: ctx.launcher },
      { port: String(defaultSandboxPort(ctx.env)) },
    );
    spinner.succeed(`sandbox running at ${url} (stop it with \`orc sandbox stop\`)`);
    return true;
  } catch (err) {
    // Several commands at once on a fresh machine: one starts the sandbox, the others find its folder or
    // port taken. They wait for that one to answer, and use it.
    const { baseUrl } = await ctx.target();
    if ((err as { taken?: boolean }).taken && (await answersWithin(baseUrl, 15_000, ctx.clock))) {
      spinner.succeed(`sandbox running at ${baseUrl}, started by another orc (stop it with \`orc sandbox stop\`)`);
      return true;
    }
    spinner.fail('the sandbox could not start');
    throw err;
  }
}
