// The sandbox's admin API (/_sandbox/…, src/sandbox/admin.ts) through the one request path: the profile's
// key, retries, the key rules. Only a sandbox has it: a live target is refused before anything is sent,
// and a service that does not know the route is said to be no sandbox (exit 2).
// zod is imported statically (this module is itself loaded on demand): an import() of 'zod/mini' would make
// the bundle keep every export of zod, locales and all, in the chunk every command loads.
import * as z from 'zod/mini';
import { ApiError } from '../../api/errors.js';
import type { Answer, HttpClient } from '../../api/http.js';
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
  const req = { method, target: path, ...(body !== undefined ? { body } : {}), schema: z.unknown() };
  return toSandbox(ctx, path, async (http) => (await http.json(req)) as T);
}

/** A GET of an admin route whose answer `consume` reads as it arrives (the export: no cap on its size);
 * a body cut off is tried again from the start when `retry` says so. */
export function adminStream<T>(
  ctx: Context,
  path: string,
  retry: boolean,
  consume: (a: Answer) => Promise<T>,
): Promise<T> {
  const req = { method: 'GET', target: path, deadline: false, ...(retry ? {} : { retries: 0 }) };
  return toSandbox(ctx, path, (http) => http.exchange(req, consume));
}

async function toSandbox<T>(ctx: Context, path: string, call: (http: HttpClient) => Promise<T>): Promise<T> {
  const target = await ctx.target();
  if (target.mode === 'live')
    throw new UsageError('the sandbox controls are for the sandbox (test mode); they never go to a live service');
  const api = await ctx.api();
  try {
    return await call(api.http);
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
