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
import type { Answer, ResponseBody } from '../api/answer.js';
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
  plainFileOrNothing,
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

/** A pulled file as orc reports it (`artifacts pull --json`, the MCP tool): these fields, in this order. */
export function reportedFile(f: PulledFile): PulledFile {
  return { kind: f.kind, name: f.name, path: f.path, size: f.size, sha256: f.sha256, state: f.state };
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
  /** Only the files of these names (an MCP resource read takes one file of a kind); default all of them. */
  names?: readonly string[];
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
 * brings its certificate code with it, a cost at start: docs/figures.md). */
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

/** @internal (the library's `artifacts.download` is its public face) */
export async function pullArtifacts(
  api: Api,
  runId: string,
  o: PullOptions,
  ev: PullEvents = {},
): Promise<PullOutcome> {
  const { wanted, pending } = await chooseKinds(api, runId, checkKinds(o.kinds));
  const dir = resolve(o.dir);
  // Nothing to pull: nothing is made on disk (not even the folder).
  if (!wanted.length) return { dir, files: [], failed: [], pending };
  await prepareDir(dir);
  const pull = new Pull(api, runId, dir, o, ev);
  // Whatever happens, the partial folders a pull made are removed if it left nothing in them.
  try {
    const jobs = await pull.plan(wanted);
    await pull.download(jobs);
    return { dir, files: pull.files, failed: pull.failed, pending };
  } finally {
    await tidyPartials(dir, pull.partialKinds);
  }
}

/** The kinds to pull: those named, every one of them ready (else refused, nothing pulled); or every ready one,
 * the others pending. */
async function chooseKinds(api: Api, runId: string, kinds: string[]): Promise<{ wanted: string[]; pending: string[] }> {
  const manifest = await api.artifacts.manifest(runId);
  if (!kinds.length)
    return {
      wanted: manifest.filter((e) => e.status === 'ready').map((e) => e.kind),
      pending: manifest.filter((e) => e.status !== 'ready').map((e) => e.kind),
    };
  const byKind = new Map<string, ArtifactEntry>(manifest.map((e) => [e.kind, e]));
  const notReady = kinds.filter((k) => byKind.get(k)?.status !== 'ready');
  if (notReady.length) {
    const what = notReady.map((k) => `${k} (${byKind.get(k)?.status ?? 'not listed'})`).join(', ');
    throw new RefusedError(
      `not ready yet in run ${runId}: ${what}; nothing was pulled`,
      `\`orc artifacts list ${runId}\` shows what is ready.`,
    );
  }
  return { wanted: kinds, pending: [] };
}

/** The folder pulled into, made, and its partial folder orc's own (not a file or a link of someone else's). */
async function prepareDir(dir: string): Promise<void> {
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
}

/** A file of a binary kind to download: where it goes, from where, through which partial file. */
interface Job {
  file: PullFile;
  url: string;
  partial: string;
}

/**
 * One pull: planned kind by kind (the JSON kinds come inline and are written whole, formatted, to
 * <dir>/<kind>.json; the file kinds are listed, one request each), then the files downloaded several at a
 * time. What was pulled and what failed are collected as they happen.
 */
class Pull {
  readonly files: PulledFile[] = [];
  readonly failed: FailedFile[] = [];
  /** The kinds whose partial folder this pull made (or used). */
  readonly partialKinds = new Set<string>();
  private readonly partials: string;

  constructor(
    private readonly api: Api,
    private readonly runId: string,
    private readonly dir: string,
    private readonly o: PullOptions,
    private readonly ev: PullEvents,
  ) {
    this.partials = join(dir, PARTIAL_DIR);
  }

  private done(file: PulledFile): void {
    this.files.push(file);
    this.ev.done?.(file);
  }

  private fail(file: FailedFile): void {
    this.failed.push(file);
    this.ev.failed?.(file);
  }

  /** Every kind's JSON written, and the files of the others to download. */
  async plan(wanted: string[]): Promise<Job[]> {
    const jobs: Job[] = [];
    try {
      for (const kind of wanted) {
        abortIfAsked(this.o.signal);
        if (JSON_ARTIFACT_KINDS.has(kind)) await this.pullJsonKind(kind);
        else jobs.push(...(await this.listFiles(kind)));
      }
    } catch (err) {
      throw isDiskFailure(err) ? diskError(err, this.dir) : err;
    }
    this.ev.plan?.(jobs.map((j) => j.file));
    return jobs;
  }

  private async pullJsonKind(kind: string): Promise<void> {
    const art = await this.api.artifacts.retrieve(this.runId, kind);
    const content = (art as { content?: unknown }).content ?? art;
    try {
      this.done(await writeJsonKind(this.dir, kind, content, this.o.keep ?? false));
    } catch (err) {
      if (!(err instanceof CollisionError)) throw err;
      this.fail({ kind, name: `${kind}.json`, path: join(this.dir, `${kind}.json`), error: err.message });
    }
  }

  /** The files of a binary kind, each with a safe path in the kind's folder (the others failed, saying why). */
  private async listFiles(kind: string): Promise<Job[]> {
    const names = this.o.names;
    const list = filesOf(await this.api.artifacts.retrieve(this.runId, kind)).filter(
      (f) => !names || names.includes(f.name),
    );
    const kindDir = join(this.dir, kind);
    if (list.length && !(await ownDir(kindDir))) {
      const error = `${kindDir} is not a folder (a file or a link of yours stands there); it was left as it is and the files of ${kind} were not written`;
      for (const f of list) this.fail({ kind, name: f.name, path: null, error });
      return [];
    }
    if (list.length && !(await ownDir(join(this.partials, kind)))) {
      throw new DiskError(
        `cannot write to ${this.dir}: ${join(this.partials, kind)} is not a folder of orc's`,
        'Move it away, or choose another folder with --dir.',
      );
    }
    this.partialKinds.add(kind);
    const taken = new Set<string>();
    const jobs: Job[] = [];
    for (const f of list) {
      const name = safeFileName(f.name);
      const refused = unusableName(f.name, name, taken, kind, kindDir);
      if (refused) {
        this.fail({ kind, name: f.name, path: null, error: refused });
        continue;
      }
      taken.add(name!);
      const file = { kind, name: f.name, path: join(kindDir, name!), size: f.size, sha256: f.sha256 };
      jobs.push({ file, url: f.url, partial: join(this.partials, kind, name!) });
    }
    return jobs;
  }

  /** The files downloaded, several at a time. A failure of the disk (full, gone read-only) ends the pull:
   * every other file would meet it too. */
  async download(jobs: Job[]): Promise<void> {
    const queue = [...jobs];
    const passed = flatMemory();
    let fatal: DiskError | null = null;
    const worker = async () => {
      for (let job = queue.shift(); job && !fatal && !this.o.signal.aborted; job = queue.shift()) {
        try {
          this.done(await downloadFile(this.api, this.runId, job, this.o, this.ev, passed));
        } catch (err) {
          if (this.o.signal.aborted) return;
          if (!isDiskFailure(err))
            this.fail({ kind: job.file.kind, name: job.file.name, path: job.file.path, error: (err as Error).message });
          else fatal ??= diskError(err, this.dir);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.o.concurrency, jobs.length)) }, worker));
    abortIfAsked(this.o.signal);
    if (fatal) throw fatal;
  }
}

/** Why a file's name from the service cannot be used (`name`: it made safe), or null when it can. */
function unusableName(
  given: string,
  name: string | null,
  taken: Set<string>,
  kind: string,
  kindDir: string,
): string | null {
  if (!name)
    return `the service sent a file name that is not safe to use as a path (${JSON.stringify(given)}); it was not written`;
  if (taken.has(name)) return `two files of ${kind} are both named ${JSON.stringify(name)}; the second was not written`;
  if (!resolve(join(kindDir, name)).startsWith(kindDir + sep))
    return `the file name ${JSON.stringify(given)} would leave ${kindDir}; it was not written`;
  return null;
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
  job: Job,
  o: PullOptions,
  ev: PullEvents,
  passed: (bytes: number) => void,
): Promise<PulledFile> {
  const { file, partial } = job;
  const present = await alreadyThere(file, o.keep ?? false);
  if (present) return present;
  const download = await Download.resume(api, runId, job, o, ev, passed);
  ev.start?.(file, download.have);
  // (An empty file still needs its partial made: the loop runs until the partial holds every byte.)
  while (download.have < file.size || !download.exists) {
    abortIfAsked(o.signal);
    try {
      await download.attempt();
    } catch (err) {
      await download.failed(err);
    }
  }
  const digest = download.hash.digest('hex');
  if (file.sha256 && digest !== file.sha256) {
    await dropPartial(partial);
    throw new DigestMismatchError(
      `${file.kind}/${file.name}: the sha256 of the download (${digest.slice(0, 12)}…) does not match the manifest (${file.sha256.slice(0, 12)}…); the file was not kept`,
    );
  }
  await placeFile(partial, file.path, `${file.kind}/${file.name}`);
  return { ...file, sha256: digest, state: download.resumed ? 'resumed' : 'downloaded' };
}

/**
 * What stands at the file's path: nothing, or a file to replace (null); the same file already (present);
 * else refused before a byte is fetched (a folder or a link, whose final rename would be refused anyway, or
 * any other file when the pull keeps what is there).
 */
async function alreadyThere(file: PullFile, keep: boolean): Promise<PulledFile | null> {
  const there = await plainFileOrNothing(file.path);
  if (there && there.size === file.size && file.sha256) {
    const digest = (await hashFile(file.path))?.hash.digest('hex');
    if (digest === file.sha256) return { ...file, sha256: digest, state: 'present' };
  }
  if (there && keep) throw new CollisionError(KEPT(file.path));
  return null;
}

/**
 * One file's download into its partial file, attempt after attempt: each asks for the rest (Range) and
 * appends it; a failure is resumed from the bytes kept, an expired URL fetched anew, and a server that
 * ignores Range starts over. Each kind of failure counts toward the same limit of attempts.
 */
class Download {
  /** The most of the file ever held: only a failure past it is progress (a start over from zero is none). */
  private furthest: number;
  private failures = 0;
  private url: string;

  private constructor(
    private readonly api: Api,
    private readonly runId: string,
    private readonly job: Job,
    private readonly o: PullOptions,
    private readonly ev: PullEvents,
    private readonly passed: (bytes: number) => void,
    /** Bytes in the partial file, all hashed into `hash`. */
    public have: number,
    public hash: Hash,
    /** The partial file is there (an empty one counts). */
    public exists: boolean,
    public resumed: boolean,
  ) {
    this.furthest = have;
    this.url = job.url;
  }

  /** The download, picking up what a partial file of an earlier pull holds (dropped if longer than the file). */
  static async resume(
    api: Api,
    runId: string,
    job: Job,
    o: PullOptions,
    ev: PullEvents,
    passed: (bytes: number) => void,
  ): Promise<Download> {
    let started = await hashFile(job.partial);
    if (started && started.size > job.file.size) {
      await dropPartial(job.partial);
      started = null;
    }
    const have = started?.size ?? 0;
    const hash = started?.hash ?? createHash('sha256');
    return new Download(api, runId, job, o, ev, passed, have, hash, started !== null, have > 0);
  }

  /** One request for the rest of the file, appended to the partial file; a body cut short is an error. */
  async attempt(): Promise<void> {
    const { file, partial } = this.job;
    const { o, ev } = this;
    const answer = await this.api.artifacts.file(this.url, {
      from: this.have,
      signal: o.signal,
      idleMs: o.idleMs ?? 30_000,
    });
    if (this.have > 0 && (answer.status !== 206 || !answer.header('content-range')?.startsWith(`bytes ${this.have}-`)))
      return this.startOver(answer);
    const fh = this.exists ? await appendPartial(partial) : await createPartial(partial);
    this.exists = true;
    const onBytes = (n: number) => {
      this.have += n; // (not inside the optional call below: without a listener its arguments are never evaluated)
      ev.progress?.(file, this.have);
    };
    await appendBody(fh, answer.body, this.hash, file.size - this.have, onBytes, this.passed);
    if (this.have < file.size)
      throw Object.assign(new Error(`the connection closed at ${this.have} of ${file.size} bytes`), {
        code: 'ERR_SHORT_BODY',
      });
  }

  /**
   * The server sent the whole file (or another range) instead of the rest: start over. That counts as a
   * failed attempt: a server that ignores Range and cuts every body short would otherwise loop forever.
   */
  private async startOver(answer: Answer): Promise<void> {
    const { file, partial } = this.job;
    answer.body.destroy();
    await dropPartial(partial);
    this.exists = false;
    this.have = 0;
    this.hash = createHash('sha256');
    if (++this.failures > ATTEMPTS) {
      const why = 'the connection broke off, and the service ignores Range, so it cannot resume';
      throw new FailedError(`${file.kind}/${file.name}: the download kept failing (${why}); nothing was kept`);
    }
  }

  /** After a failed attempt: the next one made ready (a fresh URL, a wait), or the file failed for good. */
  async failed(err: unknown): Promise<void> {
    const { file, partial } = this.job;
    const { o, ev } = this;
    if (o.signal.aborted) throw new InterruptedError();
    if (err instanceof OversizeError) {
      await dropPartial(partial);
      throw new FailedError(
        `${file.kind}/${file.name}: the service sent more than the ${file.size} bytes the manifest declares; the file was not kept`,
      );
    }
    if (err instanceof ApiError && err.code === 'signed_url_expired') {
      // Signed URLs expire: ask for the kind again and go on with a fresh one.
      this.url = await freshUrl(this.api, this.runId, file);
      ev.notice?.(`${file.kind}/${file.name}: the signed URL expired; continuing with a fresh one`);
      if (++this.failures > ATTEMPTS) throw err;
      return;
    }
    if (err instanceof ApiError || isDiskFailure(err)) throw err;
    // A failure past the furthest point yet starts the count anew.
    this.failures = this.have > this.furthest ? 1 : this.failures + 1;
    this.furthest = Math.max(this.furthest, this.have);
    if (this.failures > ATTEMPTS)
      throw new FailedError(
        `${file.kind}/${file.name}: the download kept failing (${(err as Error).message}); the ${this.have} bytes so far are kept for the next pull`,
      );
    this.resumed = this.resumed || this.have > 0;
    ev.notice?.(`${file.kind}/${file.name}: ${(err as Error).message}; resuming from byte ${this.have}`);
    await sleep(o.clock, backoff(this.failures - 1, RESUME_CURVE), o.signal);
  }
}

/**
 * The most one write hands the page cache. On a 2-core guest here, a download written a mebibyte at a time
 * cost more system time, and more unevenly from run to run, than 64 KiB at a time (the kernel copying into
 * freshly allocated large folios: copy_folio_from_iter_atomic, in perf; `dd` shows the same; docs/figures.md). The
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
  if (body.drainInto) return appendFromSocket(fh, body, hash, room, onBytes);
  return appendFromStream(fh, body, hash, room, onBytes, passed);
}

/** A body read off the socket, written and hashed in the socket's own buffer (see Staging). */
async function appendFromSocket(
  fh: FileHandle,
  body: ResponseBody,
  hash: Hash,
  room: number,
  onBytes: (n: number) => void,
): Promise<number> {
  const staging = new Staging(fh.fd, hash, room, onBytes, body);
  try {
    await body.drainInto!((bytes) => staging.take(bytes));
    staging.flush();
  } catch (err) {
    // What came before a failure is kept (and counted), for the resume.
    if (!(err instanceof OversizeError) && !isDiskFailure(err)) staging.flush();
    throw err;
  } finally {
    staging.settled = true;
    await fh.close();
  }
  return staging.total;
}

/**
 * Small pieces (TLS hands on a record, 16 KiB, at a time) gathered and written and hashed together, up to
 * a mebibyte, at the end of the turn that read them: a write and an update each cost about as much for
 * 16 KiB as for 1 MiB, and a slow download still shows (and keeps) every piece as it comes.
 */
class Staging {
  private readonly staged = Buffer.allocUnsafe(READ_BUFFER);
  private held = 0;
  private flushQueued = false;
  private readonly writeSync = (process.getBuiltinModule('node:fs') as typeof import('node:fs')).writeSync;
  /** The download is over: a flush still queued does nothing. */
  settled = false;
  /** Bytes written (and hashed and counted). */
  total = 0;

  constructor(
    private readonly fd: number,
    private readonly hash: Hash,
    private readonly room: number,
    private readonly onBytes: (n: number) => void,
    private readonly body: ResponseBody,
  ) {}

  /** Bytes off the socket: staged, or written at once when large; past the room, an OversizeError. */
  take(bytes: Uint8Array): void {
    const fits = this.total + this.held + bytes.length <= this.room;
    const part = fits ? bytes : bytes.subarray(0, this.room - this.total - this.held);
    if (this.held + part.length > this.staged.length) this.flush();
    if (part.length >= this.staged.length / 4 && this.held === 0) this.put(part);
    else {
      this.staged.set(part, this.held);
      this.held += part.length;
      this.flushLater();
    }
    if (!fits) throw new OversizeError('more than declared');
  }

  flush(): void {
    if (this.held === 0) return;
    const n = this.held;
    this.held = 0;
    this.put(this.staged.subarray(0, n));
  }

  /** On disk first, then hashed and counted: the digest never counts a byte the file lacks. */
  private put(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; )
      at += this.writeSync(this.fd, bytes, at, Math.min(WRITE_PIECE, bytes.length - at));
    this.hash.update(bytes);
    this.total += bytes.length;
    this.onBytes(bytes.length);
  }

  private flushLater(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      if (this.settled) return;
      try {
        this.flush();
      } catch (err) {
        this.body.destroy(err as Error);
      }
    });
  }
}

/** Any other body (through a proxy): by a write stream, waiting for the disk when it falls behind. */
async function appendFromStream(
  fh: FileHandle,
  body: ResponseBody,
  hash: Hash,
  room: number,
  onBytes: (n: number) => void,
  passed: (bytes: number) => void,
): Promise<number> {
  let total = 0;
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
