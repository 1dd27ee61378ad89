// `orc sandbox export <file>`: one consistent snapshot of the running sandbox, written as it arrives (no cap
// on its size, never held whole) and whole or not at all (a temporary file beside it, then a rename), for
// `orc sandbox start --import` on any machine. `-` writes it to stdout.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Answer } from '../../api/http.js';
import type { ArgsOf } from '../define.js';
import type { Context } from '../context.js';
import { diskError, isDiskFailure } from '../../artifacts/disk.js';
import type { SnapshotCounts } from '../../contract/sandbox-control.js';
import { adminStream } from './admin-call.js';
import type { exportCmd as def } from './command.js';

const PATH = '/_sandbox/export';

export default async function exportSnapshot(ctx: Context, [file]: ArgsOf<typeof def>): Promise<number> {
  if (file === '-') {
    // Bytes already on stdout cannot be taken back: a body cut off is not tried again.
    const stdout = ctx.io.streams.stdout;
    await adminStream(ctx, PATH, false, (answer) => pipe(answer, (chunk) => write(stdout, chunk)));
    return 0;
  }
  const path = resolve(file);
  const counts = await adminStream(ctx, PATH, true, async (answer) => {
    await toFile(answer, path);
    return countsOf(answer);
  });
  const summary = { file: path, ...counts };
  if (ctx.io.json) ctx.io.writeJson(summary);
  else
    ctx.io.info(`wrote ${path}: ${summary.runs} runs, ${summary.webhooks} webhooks, ${summary.deliveries} deliveries`);
  return 0;
}

/** The answer into a temporary file beside `path`, renamed over it once whole; on any failure nothing is left. */
async function toFile(answer: Answer, path: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.orc-partial`);
  try {
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await pipe(answer, async (chunk) => void (await handle.write(chunk)));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    if (!isDiskFailure(err)) throw err;
    throw exportDiskError(err, path);
  }
}

/** A disk failure as export's own line: what to do here, not a download's `--dir` or "resumed". */
function exportDiskError(err: NodeJS.ErrnoException, path: string) {
  if (err.code === 'EISDIR')
    return diskError(err, path, 'Give the snapshot another name; the folder is left as it is.');
  const full = err.code === 'ENOSPC' || err.code === 'EDQUOT';
  const hint = full ? 'Free some space and export again' : 'Give the snapshot a path in a folder you can write';
  return diskError(err, dirname(path), `${hint}; nothing was written.`);
}

async function pipe(answer: Answer, put: (chunk: Buffer) => Promise<void>): Promise<void> {
  for await (const chunk of answer.body) await put(chunk);
}

/** One chunk to a stream, waiting until it takes more (stdout to a slow pipe holds only a little). */
function write(stream: NodeJS.WritableStream, chunk: Buffer): Promise<void> {
  return new Promise((done) => (stream.write(chunk) ? done() : stream.once('drain', done)));
}

/** How many records the snapshot holds, as the sandbox says beside it (the body is never parsed). */
function countsOf(answer: Answer): SnapshotCounts {
  const n = (name: string) => Number(answer.header(`x-snapshot-${name}`) ?? 0) || 0;
  return { runs: n('runs'), webhooks: n('webhooks'), deliveries: n('deliveries') };
}
