// Pulling a run's artifacts to disk: the engine under `orc artifacts pull` and the MCP tool.
// Files stream to disk several at a time, each into a partial file in `<dir>/.orc-partial/` (where no name
// from the service can reach), renamed into place only once its sha256 matches the manifest, and never past
// its declared size. A connection dropped mid-file resumes with Range in the same pull, a later pull resumes
// from the partial file, an expired signed URL is fetched anew, and a file already there with the right
// digest is left alone. Every file is written through src/artifacts/disk.ts: nothing orc did not write is removed or
// written through. Names from the service are never trusted as paths. The key never goes to a signed URL
// (the client's download is keyless).
import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ApiError, type Api } from '../api/index.js';
import type { ResponseBody } from '../api/answer.js';
import { sleep, type Clock } from '../lib/clock.js';
import { ARTIFACT_KINDS, JSON_ARTIFACT_KINDS } from '../contract/events.js';
import type { ArtifactEntry, ArtifactFile } from '../contract/schemas.js';
import { EXIT, FailedError, InterruptedError, OrcError, RefusedError, UsageError } from '../exit/errors.js';
import { backoff, type Curve } from '../lib/backoff.js';
import { flatMemory } from '../lib/memory.js';
import { didYouMean } from '../lib/suggest.js';
import {
  PARTIAL_DIR,
  CollisionError,
  DiskError,
  appendPartial,
  createPartial,
  diskError,
  dropPartial,
  isDiskFailure,
  lstatOrNull,
  makeDir,
  openToRead,
  ownDir,
  placeFile,
  tidyPartials,
} from './disk.js';

export type FileState = 'downloaded' | 'resumed' | 'present';

/** One file of the pull, as planned. */
export interface PullFile {
  kind: string;
  /** The name as the service gave it (shown sanitised) and the path orc writes. */
  name: string;
  path: string;
  size: number;
  sha256: string | null;
}

export interface PulledFile extends PullFile {
  state: FileState;
  sha256: string;
}

export interface FailedFile {
  kind: string;
  name: string;
  path: string | null;
  error: string;
}

export interface PullEvents {
  /** The files to download, once they are all known. */
  plan?(files: PullFile[]): void;
  /** A file begins (or resumes, from byte `from`). */
  start?(file: PullFile, from: number): void;
  /** Bytes of the file on disk so far. */
  progress?(file: PullFile, bytes: number): void;
  done?(file: PulledFile): void;
  failed?(file: FailedFile): void;
  /** Something worth a line: a retry, a fresh URL. */
  notice?(line: string): void;
}

export interface PullOptions {
  /** The kinds asked for; empty for every ready one. */
  kinds: string[];
  dir: string;
  concurrency: number;
  signal: AbortSignal;
  clock: Clock;
  /** How long a download may go without a byte before it counts as dropped (ms). */
  idleMs?: number;
  /** Never replace a file already there that differs (MCP's pull_artifacts: the folder may hold the user's own
   * files): it fails, kept as it is. By default a pull refreshes the files it pulls. */
  keep?: boolean;
}

export interface PullOutcome {
  dir: string;
  files: PulledFile[];
  failed: FailedFile[];
  /** Kinds not ready yet (only when no kinds were named). */
  pending: string[];
}

/** A digest that does not match the manifest: the file is not kept (exit 1). */
export class DigestMismatchError extends OrcError {
  override readonly exitCode = EXIT.failure;
}

/** A SHA-256 (node:crypto taken when first hashed: the MCP server loads this file at start, and crypto
 * brings its certificate code with it, some 5 ms). */
const createHash = (algorithm: 'sha256'): Hash =>
  (process.getBuiltinModule('node:crypto') as typeof import('node:crypto')).createHash(algorithm);

const ATTEMPTS = 6;
/** A download that broke off resumes sooner than a request is retried (0.25 s doubling to 4 s, no jitter):
 * the service was answering a moment ago; the exchange below has already retried what never answered. */
const RESUME_CURVE: Curve = { baseMs: 250, capMs: 4000 };
const READ_BUFFER = 1 << 20;

/** The kinds a pull takes, checked before anything is sent: an unknown one is a usage error listing the six. */
export function checkKinds(kinds: string[]): string[] {
  for (const k of kinds) {
    if (!(ARTIFACT_KINDS as readonly string[]).includes(k))
      throw Object.assign(
        new UsageError(
          `<kind>: unknown artifact kind ${JSON.stringify(k)}${didYouMean(k, ARTIFACT_KINDS)} (one of ${ARTIFACT_KINDS.join(', ')})`,
        ),
        { field: '<kind>' },
      );
  }
  return [...new Set(kinds)];
}

export async function pullArtifacts(
  api: Api,
  runId: string,
  o: PullOptions,
  ev: PullEvents = {},
): Promise<PullOutcome> {
  const kinds = checkKinds(o.kinds);
  const manifest = await api.artifacts.manifest(runId);
  const byKind = new Map<string, ArtifactEntry>(manifest.map((e) => [e.kind, e]));
  let wanted: string[];
  let pending: string[] = [];
  if (kinds.length) {
    const notReady = kinds.filter((k) => byKind.get(k)?.status !== 'ready');
    if (notReady.length) {
      const what = notReady.map((k) => `${k} (${byKind.get(k)?.status ?? 'not listed'})`).join(', ');
      throw new RefusedError(
        `not ready yet in run ${runId}: ${what}; nothing was pulled`,
        `\`orc artifacts list ${runId}\` shows what is ready.`,
      );
    }
    wanted = kinds;
  } else {
    wanted = manifest.filter((e) => e.status === 'ready').map((e) => e.kind);
    pending = manifest.filter((e) => e.status !== 'ready').map((e) => e.kind);
  }

  const dir = resolve(o.dir);
  // Nothing to pull: nothing is made on disk (not even the folder).
  if (!wanted.length) return { dir, files: [], failed: [], pending };
  const partials = join(dir, PARTIAL_DIR);
  try {
    await makeDir(dir);
    if (!(await ownDir(partials))) {
      throw new DiskError(
        `cannot write to ${dir}: ${partials} is not a folder of orc's (a file or a link stands there)`,
        'Move it away, or choose another folder with --dir.',
      );
    }
  } catch (err) {
    throw isDiskFailure(err) ? diskError(err, dir) : err;
  }
  // Whatever happens, the partial folders a pull made are removed if it left nothing in them.
  const partialKinds = new Set<string>();
  try {
    const files: PulledFile[] = [];
    const failed: FailedFile[] = [];
    const fail = (f: FailedFile) => {
      failed.push(f);
      ev.failed?.(f);
    };

    // The JSON kinds come inline: each is written whole (formatted) to <dir>/<kind>.json.
    // The file kinds are listed first (one request each), then downloaded several at a time.
    const jobs: Array<{ file: PullFile; url: string; partial: string }> = [];
    try {
      for (const kind of wanted) {
        abortIfAsked(o.signal);
        if (JSON_ARTIFACT_KINDS.has(kind)) {
          const art = await api.artifacts.retrieve(runId, kind);
          const content = (art as { content?: unknown }).content ?? art;
          try {
            const done = await writeJsonKind(dir, kind, content, o.keep ?? false);
            files.push(done);
            ev.done?.(done);
          } catch (err) {
            if (!(err instanceof CollisionError)) throw err;
            fail({ kind, name: `${kind}.json`, path: join(dir, `${kind}.json`), error: err.message });
          }
          continue;
        }
        const art = await api.artifacts.retrieve(runId, kind);
        const list = filesOf(art);
        const kindDir = join(dir, kind);
        if (list.length && !(await ownDir(kindDir))) {
          for (const f of list)
            fail({
              kind,
              name: f.name,
              path: null,
              error: `${kindDir} is not a folder (a file or a link of yours stands there); it was left as it is and the files of ${kind} were not written`,
            });
          continue;
        }
        if (list.length && !(await ownDir(join(partials, kind)))) {
          throw new DiskError(
            `cannot write to ${dir}: ${join(partials, kind)} is not a folder of orc's`,
            'Move it away, or choose another folder with --dir.',
          );
        }
        partialKinds.add(kind);
        const taken = new Set<string>();
        for (const f of list) {
          const name = safeFileName(f.name);
          if (!name) {
            fail({
              kind,
              name: f.name,
              path: null,
              error: `the service sent a file name that is not safe to use as a path (${JSON.stringify(f.name)}); it was not written`,
            });
            continue;
          }
          if (taken.has(name)) {
            fail({
              kind,
              name: f.name,
              path: null,
              error: `two files of ${kind} are both named ${JSON.stringify(name)}; the second was not written`,
            });
            continue;
          }
          taken.add(name);
          const path = join(kindDir, name);
          if (!resolve(path).startsWith(kindDir + sep)) {
            fail({
              kind,
              name: f.name,
              path: null,
              error: `the file name ${JSON.stringify(f.name)} would leave ${kindDir}; it was not written`,
            });
            continue;
          }
          jobs.push({
            file: { kind, name: f.name, path, size: f.size, sha256: f.sha256 },
            url: f.url,
            partial: join(partials, kind, name),
          });
        }
      }
    } catch (err) {
      throw isDiskFailure(err) ? diskError(err, dir) : err;
    }

    ev.plan?.(jobs.map((j) => j.file));
    const queue = [...jobs];
    const passed = flatMemory();
    // A failure of the disk (full, gone read-only) ends the pull: every other file would meet it too.
    let fatal: DiskError | null = null;
    const worker = async () => {
      for (let job = queue.shift(); job && !fatal; job = queue.shift()) {
        if (o.signal.aborted) return;
        try {
          const done = await downloadFile(api, runId, job.file, job.url, job.partial, o, ev, passed);
          files.push(done);
          ev.done?.(done);
        } catch (err) {
          if (o.signal.aborted) return;
          if (isDiskFailure(err)) {
            fatal ??= diskError(err, dir);
            return;
          }
          fail({ kind: job.file.kind, name: job.file.name, path: job.file.path, error: (err as Error).message });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, jobs.length)) }, worker));
    abortIfAsked(o.signal);
    if (fatal) throw fatal;
    return { dir, files, failed, pending };
  } finally {
    await tidyPartials(dir, partialKinds);
  }
}

/**
 * A name from the service as a file name in one folder: separators and control characters become `_`;
 * `.`, `..` and empty names are refused (null). Ordinary names with dots (`.hidden.png`, `a..b.png`) stay.
 */
export function safeFileName(name: string): string | null {
  // eslint-disable-next-line no-control-regex
  const cleaned = name.normalize('NFC').replace(/[/\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '_');
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return null;
  if (Buffer.byteLength(cleaned) > 255) return null;
  return cleaned;
}

async function writeJsonKind(dir: string, kind: string, content: unknown, keep: boolean): Promise<PulledFile> {
  const name = `${kind}.json`;
  const path = join(dir, name);
  const text = `${JSON.stringify(content, null, 2)}\n`;
  const sha256 = createHash('sha256').update(text).digest('hex');
  const size = Buffer.byteLength(text);
  const existing = await openToRead(path);
  if (existing) {
    const same = await existing.readFile('utf8').finally(() => existing.close());
    if (same === text) return { kind, name, path, size, sha256, state: 'present' };
    if (keep) throw new CollisionError(KEPT(path));
  }
  const partial = join(dir, PARTIAL_DIR, name);
  await dropPartial(partial);
  const fh = await createPartial(partial);
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
  try {
    await placeFile(partial, path, name);
  } catch (err) {
    await dropPartial(partial);
    throw err;
  }
  return { kind, name, path, size, sha256, state: 'downloaded' };
}

/** The sha256 of a whole plain file (never through a link), fed into `hash` (a new one without); null if none is there. */
async function hashFile(path: string, hash: Hash = createHash('sha256')): Promise<{ hash: Hash; size: number } | null> {
  const fh = await openToRead(path);
  if (!fh) return null;
  let size = 0;
  try {
    for await (const chunk of fh.createReadStream({ highWaterMark: READ_BUFFER, autoClose: false })) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
  } finally {
    await fh.close();
  }
  return { hash, size };
}

const KEPT = (path: string) =>
  `another file stands at ${path}; it was kept as it is and this one was not written (move it away, or pull into another folder)`;

/** The service sent more than the file's declared size: that file fails, no retry. */
class OversizeError extends OrcError {
  override readonly exitCode = EXIT.failure;
}

async function downloadFile(
  api: Api,
  runId: string,
  file: PullFile,
  firstUrl: string,
  part: string,
  o: PullOptions,
  ev: PullEvents,
  passed: (bytes: number) => void,
): Promise<PulledFile> {
  const there = await lstatOrNull(file.path);
  if (there && !there.isFile()) {
    // Refused before a byte is fetched: the final rename would be refused anyway.
    const what = there.isDirectory()
      ? 'a folder'
      : there.isSymbolicLink()
        ? 'a link'
        : 'something that is not a plain file';
    throw new CollisionError(
      `${what} of yours stands at ${file.path}; it was left as it is and this file was not written (move it away, or pull into another --dir)`,
    );
  }
  // Already there with the right digest: nothing to do.
  if (there && there.size === file.size && file.sha256) {
    const digest = (await hashFile(file.path))?.hash.digest('hex');
    if (digest === file.sha256) return { ...file, sha256: digest, state: 'present' };
  }
  if (there && o.keep) throw new CollisionError(KEPT(file.path));
  let started = await hashFile(part);
  if (started && started.size > file.size) {
    await dropPartial(part);
    started = null;
  }
  let have = started?.size ?? 0;
  let hash = started?.hash ?? createHash('sha256');
  let exists = started !== null;
  let resumed = have > 0;
  let url = firstUrl;
  let failures = 0;
  /** The most of the file ever held: only a failure past it is progress (a start over from zero is none). */
  let furthest = have;
  ev.start?.(file, have);
  // (An empty file still needs its partial made: the loop runs until the partial holds every byte.)
  while (have < file.size || !exists) {
    abortIfAsked(o.signal);
    try {
      const answer = await api.artifacts.file(url, { from: have, signal: o.signal, idleMs: o.idleMs ?? 30_000 });
      if (have > 0 && (answer.status !== 206 || !answer.header('content-range')?.startsWith(`bytes ${have}-`))) {
        // The server sent the whole file (or another range) instead of the rest: start over. That counts as
        // a failed attempt: a server that ignores Range and cuts every body short would otherwise loop forever.
        answer.body.destroy();
        await dropPartial(part);
        exists = false;
        have = 0;
        hash = createHash('sha256');
        if (++failures > ATTEMPTS) {
          const why = 'the connection broke off, and the service ignores Range, so it cannot resume';
          throw new FailedError(`${file.kind}/${file.name}: the download kept failing (${why}); nothing was kept`);
        }
        continue;
      }
      const fh = exists ? await appendPartial(part) : await createPartial(part);
      exists = true;
      await appendBody(
        fh,
        answer.body,
        hash,
        file.size - have,
        (n) => {
          have += n; // (not inside the optional call below: without a listener its arguments are never evaluated)
          ev.progress?.(file, have);
        },
        passed,
      );
      if (have < file.size)
        throw Object.assign(new Error(`the connection closed at ${have} of ${file.size} bytes`), {
          code: 'ERR_SHORT_BODY',
        });
    } catch (err) {
      if (o.signal.aborted) throw new InterruptedError();
      if (err instanceof OversizeError) {
        await dropPartial(part);
        throw new FailedError(
          `${file.kind}/${file.name}: the service sent more than the ${file.size} bytes the manifest declares; the file was not kept`,
        );
      }
      if (err instanceof ApiError && err.code === 'signed_url_expired') {
        // Signed URLs expire: ask for the kind again and go on with a fresh one.
        url = await freshUrl(api, runId, file);
        ev.notice?.(`${file.kind}/${file.name}: the signed URL expired; continuing with a fresh one`);
        if (++failures > ATTEMPTS) throw err;
        continue;
      }
      if (err instanceof ApiError || isDiskFailure(err)) throw err;
      // A failure past the furthest point yet starts the count anew.
      failures = have > furthest ? 1 : failures + 1;
      furthest = Math.max(furthest, have);
      if (failures > ATTEMPTS)
        throw new FailedError(
          `${file.kind}/${file.name}: the download kept failing (${(err as Error).message}); the ${have} bytes so far are kept for the next pull`,
        );
      resumed = resumed || have > 0;
      ev.notice?.(`${file.kind}/${file.name}: ${(err as Error).message}; resuming from byte ${have}`);
      await sleep(o.clock, backoff(failures - 1, RESUME_CURVE), o.signal);
    }
  }
  const digest = hash.digest('hex');
  if (file.sha256 && digest !== file.sha256) {
    await dropPartial(part);
    throw new DigestMismatchError(
      `${file.kind}/${file.name}: the sha256 of the download (${digest.slice(0, 12)}…) does not match the manifest (${file.sha256.slice(0, 12)}…); the file was not kept`,
    );
  }
  await placeFile(part, file.path, `${file.kind}/${file.name}`);
  return { ...file, sha256: digest, state: resumed ? 'resumed' : 'downloaded' };
}

/**
 * The most one write hands the page cache. On a 2-core guest here, 512 MiB written a mebibyte at a time cost
 * 0.7-1.3 s of system time from run to run (the kernel copying into freshly allocated large folios:
 * copy_folio_from_iter_atomic, in perf), 64 KiB at a time a steady 0.3-0.4 s; `dd` shows the same. The
 * hash still takes a whole gathered piece at once.
 */
const WRITE_PIECE = 64 << 10;

/**
 * Appends the body to the open partial file (and closes it), hashing as it goes; never more than `room`
 * bytes are written: past that, an OversizeError. A body read off the socket is written and hashed right in
 * the socket's buffer, synchronously (a write to the page cache is brief, and nothing piles up); any other
 * (through a proxy) by a write stream, waiting for the disk when it falls behind, its memory kept flat.
 */
async function appendBody(
  fh: FileHandle,
  body: ResponseBody,
  hash: Hash,
  room: number,
  onBytes: (n: number) => void,
  passed: (bytes: number) => void,
): Promise<number> {
  let total = 0;
  if (body.drainInto) {
    const { writeSync } = process.getBuiltinModule('node:fs') as typeof import('node:fs');
    // Small pieces (TLS hands on a record, 16 KiB, at a time) are gathered and written and hashed together,
    // up to a mebibyte, at the end of the turn that read them: a write and an update each cost about as much
    // for 16 KiB as for 1 MiB, and a slow download still shows (and keeps) every piece as it comes.
    const staged = Buffer.allocUnsafe(READ_BUFFER);
    let held = 0;
    let settled = false;
    let flushQueued = false;
    const put = (bytes: Uint8Array) => {
      // On disk first, then hashed and counted: the digest never counts a byte the file lacks.
      for (let at = 0; at < bytes.length; ) at += writeSync(fh.fd, bytes, at, Math.min(WRITE_PIECE, bytes.length - at));
      hash.update(bytes);
      total += bytes.length;
      onBytes(bytes.length);
    };
    const flush = () => {
      if (held === 0) return;
      const n = held;
      held = 0;
      put(staged.subarray(0, n));
    };
    const flushLater = () => {
      if (flushQueued) return;
      flushQueued = true;
      setImmediate(() => {
        flushQueued = false;
        if (settled) return;
        try {
          flush();
        } catch (err) {
          body.destroy(err as Error);
        }
      });
    };
    try {
      await body.drainInto((bytes) => {
        const fits = total + held + bytes.length <= room;
        const part = fits ? bytes : bytes.subarray(0, room - total - held);
        if (held + part.length > staged.length) flush();
        if (part.length >= staged.length / 4 && held === 0) put(part);
        else {
          staged.set(part, held);
          held += part.length;
          flushLater();
        }
        if (!fits) throw new OversizeError('more than declared');
      });
      flush();
    } catch (err) {
      // What came before a failure is kept (and counted), for the resume.
      if (!(err instanceof OversizeError) && !isDiskFailure(err)) flush();
      throw err;
    } finally {
      settled = true;
      await fh.close();
    }
    return total;
  }
  const out = fh.createWriteStream({ highWaterMark: READ_BUFFER });
  let writeError: Error | null = null;
  const failed = new Promise<void>((resolve) => out.once('error', (err) => resolve(void (writeError = err))));
  try {
    for await (const chunk of body) {
      const fits = total + chunk.length <= room;
      const part = fits ? chunk : chunk.subarray(0, room - total);
      hash.update(part);
      total += part.length;
      if (!out.write(part)) await Promise.race([new Promise<void>((r) => out.once('drain', () => r())), failed]);
      if (writeError) throw writeError;
      onBytes(part.length);
      passed(part.length);
      if (!fits) throw new OversizeError('more than declared');
    }
  } catch (err) {
    body.destroy();
    throw err;
  } finally {
    await new Promise<void>((r) => out.end(() => r()));
  }
  if (writeError) throw writeError;
  return total;
}

async function freshUrl(api: Api, runId: string, file: PullFile): Promise<string> {
  const art = await api.artifacts.retrieve(runId, file.kind);
  const again = filesOf(art).find((f) => f.name === file.name);
  if (!again) throw new FailedError(`${file.kind}/${file.name} is no longer listed by the service`);
  if (again.sha256 !== file.sha256)
    throw new FailedError(`${file.kind}/${file.name} changed on the service while it was being pulled; pull again`);
  return again.url;
}

/** The files of a binary kind's answer (the schema has checked their shape). */
function filesOf(art: unknown): ArtifactFile[] {
  const files = (art as { files?: unknown }).files;
  return Array.isArray(files) ? (files as ArtifactFile[]) : [];
}

function abortIfAsked(signal: AbortSignal): void {
  if (signal.aborted) throw new InterruptedError();
}
