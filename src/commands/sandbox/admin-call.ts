// The sandbox's admin API (/_sandbox/…, src/sandbox/admin.ts) through the one request path: the profile's
// key, retries, the key rules. Only a sandbox has it: a live target is refused before anything is sent,
// and a service that does not know the route is said to be no sandbox (exit 2).
import { ApiError } from '../../api/errors.js';
import type { Answer } from '../../api/http.js';
import type { SandboxAdmin } from '../../api/resources/sandbox.js';
import type { Context } from '../context.js';
import { UsageError } from '../../exit/errors.js';
import type { ClockView } from '../../contract/sandbox-control.js';

/** An admin route's JSON answer, as the contract shapes it (`T`, from src/contract/sandbox-control.ts). */
export async function adminCall<T extends object>(
  ctx: Context,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  return toSandbox(ctx, path, (admin) => admin.call<T>(method, path, body));
}

/** A GET of an admin route whose answer `consume` reads as it arrives (the export: no cap on its size);
 * a body cut off is tried again from the start when `retry` says so. */
export function adminStream<T>(
  ctx: Context,
  path: string,
  retry: boolean,
  consume: (a: Answer) => Promise<T>,
): Promise<T> {
  return toSandbox(ctx, path, (admin) => admin.exportStream(consume, retry));
}

async function toSandbox<T>(ctx: Context, path: string, call: (admin: SandboxAdmin) => Promise<T>): Promise<T> {
  const target = await ctx.target();
  if (target.mode === 'live')
    throw new UsageError('the sandbox controls are for the sandbox (test mode); they never go to a live service');
  const api = await ctx.api();
  try {
    return await call(api.sandbox);
  } catch (err) {
    // A 404 that names a missing thing (run_not_found, fault_not_found, …) is the sandbox answering; any other
    // 404 (route_not_found, or a code a sandbox never gives) means the route is not there.
    if (
      err instanceof ApiError &&
      err.status === 404 &&
      (err.code === 'route_not_found' || !err.code.endsWith('_not_found'))
    ) {
      throw new UsageError(
        `${target.baseUrl} is not an orc sandbox: it has no ${path}; the sandbox controls work only against \`orc sandbox\``,
      );
    }
    throw err;
  }
}

/** One line about where the sandbox's time is. */
export function clockLine(c: ClockView): string {
  return `${c.now} (${c.mode === 'manual' ? 'manual: it moves when advanced' : 'real time'})${c.next_due ? `; next due ${c.next_due}` : ''}; ${c.runs.length} run${c.runs.length === 1 ? '' : 's'} moving`;
}
