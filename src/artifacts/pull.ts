// Pulling a run's artifacts to disk: the engine under `orc artifacts pull` (and, next, the MCP tool).
// Files stream to disk several at a time, each into `<name>.part`, renamed only once its sha256 matches the
// manifest. A connection dropped mid-file resumes with Range in the same pull, a later pull resumes from the
// `.part` file, an expired signed URL is fetched anew, and a file already there with the right digest is
// left alone. Names from the service are never trusted as paths. The key never goes to a signed URL (the
// client's download is keyless).
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ApiError, type Api } from '../api/index.js';
import { sleep, type Clock } from '../clock.js';
import { ARTIFACT_KINDS, JSON_ARTIFACT_KINDS } from '../contract/events.js';
import type { ArtifactEntry, ArtifactFile } from '../contract/schemas.js';
import { EXIT, InterruptedError, OrcError, RetoldError, UsageError } from '../errors.js';
import { flatMemory } from '../memory.js';

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

const ATTEMPTS = 6;
const READ_BUFFER = 1 << 20;

/** The kinds a pull takes, checked before anything is sent: an unknown one is a usage error listing the six. */
export function checkKinds(kinds: string[]): string[] {
  for (const k of kinds) {
    if (!(ARTIFACT_KINDS as readonly string[]).includes(k)) throw new UsageError(`unknown artifact kind ${JSON.stringify(k)}: one of ${ARTIFACT_KINDS.join(', ')}`);
  }
  return [...new Set(kinds)];
}

export async function pullArtifacts(api: Api, runId: string, o: PullOptions, ev: PullEvents = {}): Promise<PullOutcome> {
  const kinds = checkKinds(o.kinds);
  const manifest = await api.artifacts.manifest(runId);
  const byKind = new Map<string, ArtifactEntry>(manifest.map((e) => [e.kind, e]));
  let wanted: string[];
  let pending: string[] = [];
  if (kinds.length) {
    const notReady = kinds.filter((k) => byKind.get(k)?.status !== 'ready');
    if (notReady.length) {
      const what = notReady.map((k) => `${k} (${byKind.get(k)?.status ?? 'not listed'})`).join(', ');
      throw new RetoldError(`not ready yet in run ${runId}: ${what}; nothing was pulled`, EXIT.refused, `\`orc artifacts list ${runId}\` shows what is ready.`);
    }
    wanted = kinds;
  } else {
    wanted = manifest.filter((e) => e.status === 'ready').map((e) => e.kind);
    pending = manifest.filter((e) => e.status !== 'ready').map((e) => e.kind);
  }

  const dir = resolve(o.dir);
  await mkdir(dir, { recursive: true });
  const files: PulledFile[] = [];
  const failed: FailedFile[] = [];
  const fail = (f: FailedFile) => {
    failed.push(f);
    ev.failed?.(f);
  };

  // The JSON kinds come inline: each is written whole (formatted) to <dir>/<kind>.json.
  // The file kinds are listed first (one request each), then downloaded several at a time.
  const jobs: Array<{ file: PullFile; url: string }> = [];
  for (const kind of wanted) {
    abortIfAsked(o.signal);
    if (JSON_ARTIFACT_KINDS.has(kind)) {
      const art = await api.artifacts.retrieve(runId, kind);
      const content = (art as { content?: unknown }).content ?? art;
      const done = await writeJsonKind(dir, kind, content);
      files.push(done);
      ev.done?.(done);
      continue;
    }
    const art = await api.artifacts.retrieve(runId, kind);
    const list = filesOf(art);
    const taken = new Set<string>();
    for (const f of list) {
      const name = safeFileName(f.name);
      if (!name) {
        fail({ kind, name: f.name, path: null, error: `the service sent a file name that is not safe to use as a path (${JSON.stringify(f.name)}); it was not written` });
        continue;
      }
      if (taken.has(name)) {
        fail({ kind, name: f.name, path: null, error: `two files of ${kind} are both named ${JSON.stringify(name)}; the second was not written` });
        continue;
      }
      taken.add(name);
      const kindDir = join(dir, kind);
      const path = join(kindDir, name);
      if (!resolve(path).startsWith(kindDir + sep)) {
        fail({ kind, name: f.name, path: null, error: `the file name ${JSON.stringify(f.name)} would leave ${kindDir}; it was not written` });
        continue;
      }
      jobs.push({ file: { kind, name: f.name, path, size: f.size, sha256: f.sha256 }, url: f.url });
    }
  }

  ev.plan?.(jobs.map((j) => j.file));
  const queue = [...jobs];
  const passed = flatMemory();
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      if (o.signal.aborted) return;
      try {
        const done = await downloadFile(api, runId, job.file, job.url, o, ev, passed);
        files.push(done);
        ev.done?.(done);
      } catch (err) {
        if (o.signal.aborted) return;
        fail({ kind: job.file.kind, name: job.file.name, path: job.file.path, error: (err as Error).message });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, jobs.length)) }, worker));
  abortIfAsked(o.signal);
  return { dir, files, failed, pending };
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

async function writeJsonKind(dir: string, kind: string, content: unknown): Promise<PulledFile> {
  const path = join(dir, `${kind}.json`);
  const text = `${JSON.stringify(content, null, 2)}\n`;
  const sha256 = createHash('sha256').update(text).digest('hex');
  const size = Buffer.byteLength(text);
  const existing = await readFile(path, 'utf8').catch(() => null);
  if (existing === text) return { kind, name: `${kind}.json`, path, size, sha256, state: 'present' };
  const part = `${path}.part`;
  await writeFile(part, text, { mode: 0o644 });
  await rename(part, path);
  return { kind, name: `${kind}.json`, path, size, sha256, state: 'downloaded' };
}

/** The sha256 of a whole file, fed into `hash` (a new one without). */
async function hashFile(path: string, hash: Hash = createHash('sha256')): Promise<Hash> {
  for await (const chunk of createReadStream(path, { highWaterMark: READ_BUFFER })) hash.update(chunk as Buffer);
  return hash;
}

async function regularFileSize(path: string): Promise<number | null> {
  const s = await lstat(path).catch(() => null);
  if (!s) return null;
  if (!s.isFile()) {
    // Not a file of ours (a link, a folder): never written through.
    await rm(path, { recursive: true, force: true });
    return null;
  }
  return s.size;
}

async function downloadFile(api: Api, runId: string, file: PullFile, firstUrl: string, o: PullOptions, ev: PullEvents, passed: (bytes: number) => void): Promise<PulledFile> {
  await mkdir(join(file.path, '..'), { recursive: true });
  // Already there with the right digest: nothing to do.
  const present = await regularFileSize(file.path);
  if (present === file.size && file.sha256) {
    const digest = (await hashFile(file.path)).digest('hex');
    if (digest === file.sha256) return { ...file, sha256: digest, state: 'present' };
  }
  const part = `${file.path}.part`;
  let have = (await regularFileSize(part)) ?? 0;
  if (have > file.size) {
    await rm(part, { force: true });
    have = 0;
  }
  const resumedFromDisk = have > 0;
  let resumed = resumedFromDisk;
  let hash = have > 0 ? await hashFile(part) : createHash('sha256');
  let url = firstUrl;
  let failures = 0;
  ev.start?.(file, have);
  // (An empty file still needs its .part made: the loop runs until the .part holds every byte.)
  while (have < file.size || !(await exists(part))) {
    abortIfAsked(o.signal);
    let got = 0;
    try {
      const answer = await api.artifacts.file(url, { from: have, signal: o.signal, idleMs: o.idleMs ?? 30_000 });
      if (have > 0 && (answer.status !== 206 || !answer.header('content-range')?.startsWith(`bytes ${have}-`))) {
        // The server sent the whole file (or another range) instead of the rest: start over.
        answer.body.destroy();
        await rm(part, { force: true });
        have = 0;
        hash = createHash('sha256');
        continue;
      }
      got = await appendBody(part, answer.body, hash, (n) => {
        passed(n);
        have += n; // (not inside the optional call below: without a listener its arguments are never evaluated)
        ev.progress?.(file, have);
      });
      if (have < file.size) throw Object.assign(new Error(`the connection closed at ${have} of ${file.size} bytes`), { code: 'ERR_SHORT_BODY' });
    } catch (err) {
      if (o.signal.aborted) throw new InterruptedError();
      if (err instanceof ApiError && err.code === 'signed_url_expired') {
        // Signed URLs expire: ask for the kind again and go on with a fresh one.
        url = await freshUrl(api, runId, file);
        ev.notice?.(`${file.kind}/${file.name}: the signed URL expired; continuing with a fresh one`);
        if (++failures > ATTEMPTS) throw err;
        continue;
      }
      if (err instanceof ApiError || isDiskError(err)) throw err;
      failures = got > 0 ? 1 : failures + 1;
      if (failures > ATTEMPTS) throw new RetoldError(`${file.kind}/${file.name}: the download kept failing (${(err as Error).message}); the ${have} bytes so far are kept for the next pull`, EXIT.failure);
      resumed = resumed || have > 0;
      ev.notice?.(`${file.kind}/${file.name}: ${(err as Error).message}; resuming from byte ${have}`);
      await sleep(o.clock, Math.min(250 * 2 ** (failures - 1), 4000), o.signal);
    }
  }
  const digest = hash.digest('hex');
  if (file.sha256 && digest !== file.sha256) {
    await rm(part, { force: true });
    throw new DigestMismatchError(`${file.kind}/${file.name}: the sha256 of the download (${digest.slice(0, 12)}…) does not match the manifest (${file.sha256.slice(0, 12)}…); the file was not kept`);
  }
  await rename(part, file.path);
  return { ...file, sha256: digest, state: resumed ? 'resumed' : 'downloaded' };
}

/** The disk, not the network: no retry helps (ENOSPC, EACCES, EROFS, EIO). */
function isDiskError(err: unknown): boolean {
  const syscall = (err as NodeJS.ErrnoException)?.syscall;
  return syscall === 'write' || syscall === 'open' || syscall === 'close' || syscall === 'fsync';
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null)) !== null;
}

/** Appends the body to the file, hashing as it goes, waiting for the disk when it falls behind. */
async function appendBody(path: string, body: AsyncIterable<Buffer> & { destroy(err?: Error): void }, hash: Hash, onBytes: (n: number) => void): Promise<number> {
  const out = createWriteStream(path, { flags: 'a', mode: 0o644, highWaterMark: READ_BUFFER });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => {});
  let total = 0;
  try {
    for await (const chunk of body) {
      hash.update(chunk);
      total += chunk.length;
      if (!out.write(chunk)) await Promise.race([new Promise<void>((r) => out.once('drain', () => r())), failed]);
      onBytes(chunk.length);
    }
  } catch (err) {
    body.destroy();
    throw err;
  } finally {
    await new Promise<void>((r) => out.end(() => r()));
  }
  return total;
}

async function freshUrl(api: Api, runId: string, file: PullFile): Promise<string> {
  const art = await api.artifacts.retrieve(runId, file.kind);
  const again = filesOf(art).find((f) => f.name === file.name);
  if (!again) throw new RetoldError(`${file.kind}/${file.name} is no longer listed by the service`, EXIT.failure);
  if (again.sha256 !== file.sha256) throw new RetoldError(`${file.kind}/${file.name} changed on the service while it was being pulled; pull again`, EXIT.failure);
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
