// `orc sandbox console`: a one-time link to the sandbox's web console, opened in the browser at a terminal.
// The link trades itself for a session cookie on first use; the key never reaches the browser.
import { spawn } from 'node:child_process';
import type { FlagsOf } from '../define.js';
import type { Context } from '../context.js';
import { oneLine } from '../../lib/sanitize.js';
import type { ConsoleLink } from '../../contract/sandbox-control.js';
import { adminCall } from './admin-call.js';
import type { consoleCmd as def } from './command.js';

export default async function openConsole(ctx: Context, _args: [], flags: FlagsOf<typeof def>): Promise<number> {
  const { url, expires_at } = await adminCall<ConsoleLink>(ctx, 'POST', '/_sandbox/console');
  if (ctx.io.json) return (ctx.io.writeJson({ url, expires_at }), 0);
  ctx.io.out(oneLine(url));
  if (flags.open && ctx.io.interactiveOutput && (await openBrowser(ctx.env, url)))
    ctx.io.info('opened in your browser; the link works once, within 10 minutes');
  else ctx.io.info('open it in a browser: it works once, within 10 minutes');
  return 0;
}

/** $BROWSER, else the platform's opener; false when there is none. Never waits for the browser. */
function openBrowser(env: NodeJS.ProcessEnv, url: string): Promise<boolean> {
  const [cmd, ...args] = env.BROWSER
    ? [env.BROWSER, url]
    : process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url]
        : ['xdg-open', url];
  return new Promise((resolve) => {
    const child = spawn(cmd!, args, { stdio: 'ignore', detached: true, env });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
