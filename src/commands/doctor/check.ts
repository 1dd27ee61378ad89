// `orc doctor`: what is wrong, before anyone has to ask. Each check passes, warns or fails, with the command
// that fixes it; exit 0 unless one fails. It never starts the sandbox, never prompts, never sends the key
// anywhere the key rules would not.
import { constants, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import * as z from 'zod/mini';
import type { Api } from '../../api/index.js';
import type { Target } from '../../config/target.js';
import type { Context } from '../context.js';
import { redactKey } from '../../contract/keys.js';
import { FailedError } from '../../exit/errors.js';
import { Problem } from '../../lib/problem.js';
import { sanitizeLine } from '../../lib/sanitize.js';
import { loadStyle } from '../../ui/style.js';

export type Status = 'pass' | 'warn' | 'fail';

export interface Check {
  id: string;
  status: Status;
  message: string;
  /** The command (or step) that fixes it, when it is not a pass. */
  fix?: string;
}

const MIN_NODE: [number, number] = [22, 12];

export default async function doctor(ctx: Context): Promise<number> {
  const checks: Check[] = [];
  const add = (c: Check) => checks.push(c);
  add(nodeCheck());
  for (const c of configChecks(ctx)) add(c);
  for (const c of await serviceChecks(ctx)) add(c);
  add(completionCheck(ctx.env));
  add(pathCheck(ctx.env));

  const ok = checks.every((c) => c.status !== 'fail');
  if (ctx.io.json) ctx.io.writeJson({ ok, checks });
  else {
    const style = await loadStyle(ctx.io);
    const mark = { pass: style.green('✓'), warn: style.yellow('!'), fail: style.red('✗') };
    for (const c of checks) {
      ctx.io.out(`${mark[c.status]} ${sanitizeLine(c.message)}`);
      if (c.fix && c.status !== 'pass') ctx.io.out(`    ${style.dim('→')} ${sanitizeLine(c.fix)}`);
    }
  }
  if (!ok) {
    const failed = checks.filter((c) => c.status === 'fail').length;
    throw new FailedError(`${failed} check${failed === 1 ? '' : 's'} failed`);
  }
  return 0;
}

function nodeCheck(): Check {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const recent = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  if (!recent)
    return {
      id: 'node',
      status: 'fail',
      message: `Node ${process.versions.node} runs orc; it needs ${MIN_NODE.join('.')} or newer`,
      fix: 'npm install (brings Node 24 into node_modules), or install a current Node',
    };
  return {
    id: 'node',
    status: 'pass',
    message: `Node ${process.versions.node}${major % 2 === 1 ? ' (an odd, short-lived release)' : ''}`,
  };
}

function configChecks(ctx: Context): Check[] {
  const dir = ctx.configDir;
  if (!existsSync(dir))
    return [
      {
        id: 'config',
        status: 'pass',
        message: `config folder ${dir} (not made yet: nothing is configured, the built-in sandbox profile is used)`,
      },
    ];
  const s = statSync(dir);
  if (!s.isDirectory())
    return [
      {
        id: 'config',
        status: 'fail',
        message: `config folder ${dir} is a file`,
        fix: `move it away, or set ORC_CONFIG_DIR to a folder`,
      },
    ];
  const out: Check[] = [];
  const loose = s.mode & 0o077;
  out.push(
    loose
      ? {
          id: 'config',
          status: 'warn',
          message: `config folder ${dir} is mode ${(s.mode & 0o777).toString(8)}: others can look in it`,
          fix: `chmod 700 ${dir}`,
        }
      : { id: 'config', status: 'pass', message: `config folder ${dir} (mode 700)` },
  );
  const file = join(dir, 'config.json');
  if (existsSync(file)) {
    const f = statSync(file);
    if (f.mode & 0o077)
      out.push({
        id: 'config-file',
        status: 'fail',
        message: `${file} is mode ${(f.mode & 0o777).toString(8)}: it may hold keys others can read`,
        fix: `chmod 600 ${file}`,
      });
    try {
      JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      out.push({
        id: 'config-file',
        status: 'fail',
        message: `${file} is not valid JSON (${(err as Error).message})`,
        fix: `fix it, or move it away and add the profiles again`,
      });
    }
  }
  return out;
}

async function serviceChecks(ctx: Context): Promise<Check[]> {
  let target: Target;
  try {
    target = await ctx.target();
  } catch (err) {
    if (err instanceof Problem)
      return [{ id: 'profile', status: 'fail', message: err.message, fix: err.hint ?? 'orc profile list' }];
    throw err;
  }
  const out = await profileChecks(ctx, target);
  const network = await networkCheck(ctx, target);
  out.push(network);
  if (network.status === 'fail') return out;
  out.push(...(await reachChecks(ctx, target)));
  return out;
}

/** Which profile, address and key, and where the key is kept. */
async function profileChecks(ctx: Context, target: Target): Promise<Check[]> {
  const out: Check[] = [];
  const liveInFile = await liveKeyInFile(ctx, target.profile);
  const where = {
    'built-in': 'built in',
    env: 'ORC_API_KEY',
    profile: target.mode === 'live' && !liveInFile ? 'the OS keychain' : 'the config file',
  }[target.keyFrom];
  out.push({
    id: 'profile',
    status: 'pass',
    message: `profile ${target.profile} (from ${target.profileFrom}) → ${target.baseUrl}, ${target.mode} key from ${where}`,
  });
  if (liveInFile)
    out.push({
      id: 'keychain',
      status: 'warn',
      message: `the live key of ${target.profile} is in the config file (0600), not an OS keychain`,
      fix: 'on a desktop with a keychain: orc profile add <name> --with-key again; ORC_NO_KEYCHAIN keeps it in the file on purpose',
    });
  return out;
}

/** The way there: direct or through which proxy, and the CA file trusted besides the system's. */
async function networkCheck(ctx: Context, target: Target): Promise<Check> {
  const { proxyFor, redactProxy } = await import('../../api/proxy.js');
  try {
    const proxy = proxyFor(new URL(target.baseUrl), ctx.env);
    const ca = target.caFile
      ? `; trusting the CAs in ${target.caFile} too`
      : ctx.env.NODE_EXTRA_CA_CERTS
        ? `; trusting the CAs in ${ctx.env.NODE_EXTRA_CA_CERTS} (NODE_EXTRA_CA_CERTS) too`
        : '';
    return {
      id: 'network',
      status: 'pass',
      message: `${proxy ? `through the proxy ${redactProxy(proxy.url)} (from ${proxy.from})` : 'direct, no proxy'}${ca}`,
    };
  } catch (err) {
    if (!(err instanceof Problem)) throw err;
    return { id: 'network', status: 'fail', message: err.message, fix: err.hint ?? 'fix or unset the proxy variable' };
  }
}

/** Whether the service answers, takes the key, and is a sandbox: one request, no retry. */
async function reachChecks(ctx: Context, target: Target): Promise<Check[]> {
  const { createApi } = await import('../../api/index.js');
  const api = createApi({
    baseUrl: target.baseUrl,
    apiKey: target.key,
    userAgent: `orc/${ctx.version} doctor`,
    clock: ctx.clock,
    maxRetries: 0,
    deadlineMs: 5000,
    attemptTimeoutMs: 5000,
    env: ctx.env,
    ...(target.caFile ? { caFile: target.caFile } : {}),
  });
  const started = performance.now();
  try {
    await api.runs.list({ limit: 1 });
    const ms = Math.round(performance.now() - started);
    const out: Check[] = [
      {
        id: 'service',
        status: ms > 2000 ? 'warn' : 'pass',
        message: `${target.baseUrl} answers (${ms} ms)${ms > 2000 ? ': slow' : ''}`,
      },
      { id: 'key', status: 'pass', message: `the ${target.mode} key ${redactKey(target.key)} is accepted` },
    ];
    const sandbox = target.mode === 'test' ? await sandboxCheck(api) : null;
    if (sandbox) out.push(sandbox);
    return out;
  } catch (err) {
    return await unreached(err, target, Math.round(performance.now() - started));
  } finally {
    void api.http.close();
  }
}

/** A sandbox says so, with its clock and how to steer it (a service has no /_sandbox/). */
async function sandboxCheck(api: Api): Promise<Check | null> {
  const clock = await api.http
    .json({ method: 'GET', target: '/_sandbox/clock', schema: z.object({ mode: z.string() }), retries: 0 })
    .catch(() => null);
  if (!clock) return null;
  return {
    id: 'sandbox',
    status: 'pass',
    message: `it is an orc sandbox, on ${clock.mode === 'manual' ? 'a manual clock (orc sandbox advance moves it)' : 'real time'}; steer it for tests with orc sandbox clock|advance|trigger|fault|reset|export|exec|logs (orc help steering)`,
  };
}

/** Why the service did not answer as it should, and what to do. */
async function unreached(err: unknown, target: Target, ms: number): Promise<Check[]> {
  const { ApiError, ApiConnectionError, UntrustedCertificateError } = await import('../../api/index.js');
  if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
    const fix =
      target.keyFrom === 'env'
        ? 'unset ORC_API_KEY, or set it to a key the service accepts'
        : `orc profile add ${target.profile} --with-key (with a key from your dashboard)`;
    return [
      { id: 'service', status: 'pass', message: `${target.baseUrl} answers (${ms} ms)` },
      { id: 'key', status: 'fail', message: `the key is refused: ${err.message}`, fix },
    ];
  }
  if (err instanceof UntrustedCertificateError)
    return [
      { id: 'service', status: 'fail', message: err.message.replace(/; nothing was sent$/, ''), fix: err.hint ?? '' },
    ];
  if (err instanceof ApiConnectionError && target.autoStartSandbox)
    return [
      {
        id: 'service',
        status: 'warn',
        message: `no sandbox answers at ${target.baseUrl} (orc starts one when a command needs it)`,
        fix: 'orc sandbox start --detach',
      },
    ];
  if (err instanceof Problem)
    return [
      {
        id: 'service',
        status: 'fail',
        message: `${target.baseUrl} does not answer as the service: ${err.message}`,
        fix: 'check the address (orc profile show), your network, or the service status',
      },
    ];
  throw err;
}

async function liveKeyInFile(ctx: Context, profile: string): Promise<boolean> {
  try {
    const { readConfig } = await import('../../config/profiles.js');
    return readConfig(ctx.configDir).profiles[profile]?.live_key_in === 'file';
  } catch {
    return false;
  }
}

/** Whether completion is set up for the user's shell, where each shell looks for it. */
export function completionCheck(env: NodeJS.ProcessEnv): Check {
  const shell = (env.SHELL ?? '').split('/').pop() ?? '';
  const home = env.HOME ?? homedir();
  const read = (f: string) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  const any = (files: string[]) => files.some((f) => existsSync(f));
  const mentions = (files: string[]) => files.some((f) => read(f).includes('orc completion'));
  const xdgData = env.XDG_DATA_HOME || join(home, '.local', 'share');
  switch (shell) {
    case 'bash':
      return any([join(xdgData, 'bash-completion', 'completions', 'orc'), '/etc/bash_completion.d/orc']) ||
        mentions([join(home, '.bashrc'), join(home, '.bash_profile')])
        ? { id: 'completion', status: 'pass', message: 'bash completion is set up' }
        : {
            id: 'completion',
            status: 'warn',
            message: 'bash completion is not set up',
            fix: "echo 'source <(orc completion bash)' >> ~/.bashrc",
          };
    case 'zsh': {
      const dirs = (env.FPATH ?? '').split(':').filter(Boolean);
      return any(dirs.map((d) => join(d, '_orc'))) || mentions([join(env.ZDOTDIR ?? home, '.zshrc')])
        ? { id: 'completion', status: 'pass', message: 'zsh completion is set up' }
        : {
            id: 'completion',
            status: 'warn',
            message: 'zsh completion is not set up',
            fix: 'orc completion zsh > "${fpath[1]}/_orc", then start a new shell',
          };
    }
    case 'fish':
      return any([join(env.XDG_CONFIG_HOME || join(home, '.config'), 'fish', 'completions', 'orc.fish')])
        ? { id: 'completion', status: 'pass', message: 'fish completion is set up' }
        : {
            id: 'completion',
            status: 'warn',
            message: 'fish completion is not set up',
            fix: 'orc completion fish > ~/.config/fish/completions/orc.fish',
          };
    default:
      return {
        id: 'completion',
        status: 'warn',
        message: `no completion for this shell (${shell || 'SHELL is not set'}); orc completes in bash, zsh and fish`,
      };
  }
}

/** Whether `orc` can be typed as is. */
export function pathCheck(env: NodeJS.ProcessEnv): Check {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const file = join(dir, 'orc');
    try {
      const s = statSync(file);
      if (s.isFile() && s.mode & constants.S_IXUSR)
        return { id: 'path', status: 'pass', message: `orc is on the PATH (${file})` };
    } catch {
      // not here
    }
  }
  return {
    id: 'path',
    status: 'warn',
    message: 'orc is not on the PATH (npx orc works, at about 0.5 s a call)',
    fix: 'npm link (in the checkout), or npm install -g .',
  };
}
