// `orc sandbox export <file>`: one consistent snapshot of the running sandbox, written whole or not at all
// (a temporary file beside it, then a rename), for `orc sandbox start --import` on any machine.
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { ArgsOf } from '../../cli/spec.js';
import type { Context } from '../../context.js';
import { diskError, isDiskFailure } from '../../disk.js';
import { adminCall } from './admin-call.js';
import type { exportCmd as spec } from './command.js';

export default async function exportSnapshot(ctx: Context, [file]: ArgsOf<typeof spec>): Promise<number> {
  const snap = await adminCall<{ runs: unknown[]; webhooks: unknown[]; deliveries: unknown[] }>(ctx, 'GET', '/_sandbox/export');
  const path = resolve(file);
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.orc-partial`);
  try {
    await writeFile(tmp, `${JSON.stringify(snap, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    if (!isDiskFailure(err)) throw err;
    // A folder by that name: said as the file it is, and left as it was.
    throw err.code === 'EISDIR' ? diskError(err, path, 'Give the snapshot another name; the folder is left as it is.') : diskError(err, dirname(path));
  }
  const summary = { file: path, runs: snap.runs.length, webhooks: snap.webhooks.length, deliveries: snap.deliveries.length };
  if (ctx.io.json) ctx.io.writeJson(summary);
  else ctx.io.info(`wrote ${path}: ${summary.runs} runs, ${summary.webhooks} webhooks, ${summary.deliveries} deliveries`);
  return 0;
}
