// The one way orc writes files into a folder of the user's (`artifacts pull --dir`): it never removes or
// writes through anything it did not create. Folders are made one level at a time (Node's recursive mkdir
// spins forever under /proc); partial files live in a private `.orc-partial/` folder that no name from the
// service can reach, are opened without following links (O_NOFOLLOW) and created exclusively (O_EXCL), and
// are renamed into place only over nothing or over a plain file. A folder, link or device where a file
// should go is the user's: that file is refused, nothing is removed. Disk failures become one line that
// names the folder and the fix.
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, parse, resolve } from 'node:path';
import { EXIT, OrcError } from '../exit/errors.js';

/** Where a pull keeps what it has not finished, inside the folder it writes. */
export const PARTIAL_DIR = '.orc-partial';

/** The folder (or a file in it) cannot be written: exit 4 before anything is pulled, exit 1 once under way. */
export class DiskError extends OrcError {
  override readonly exitCode: number;
  constructor(message: string, hint: string, exitCode: number = EXIT.auth) {
    super(message, hint);
    this.exitCode = exitCode;
  }
}

/** Something of the user's stands where orc would write a file: that file is refused, left as it is. */
export class CollisionError extends OrcError {
  override readonly exitCode = EXIT.failure;
}

const WHY: Record<string, [string, string]> = {
  EACCES: ['permission denied', 'Fix its permissions, or choose another folder with --dir.'],
  EPERM: ['not permitted', 'Choose another folder with --dir.'],
  EROFS: ['the file system is read-only', 'Choose another folder with --dir.'],
  ENOTDIR: ['a part of the path is a file, not a folder', 'Choose another folder with --dir.'],
  EEXIST: ['a file stands where a folder should be', 'Move it away, or choose another folder with --dir.'],
  ENOENT: ['it cannot be created there', 'Choose another folder with --dir.'],
  ENOSPC: [
    'the disk is full',
    'Free some space and run the same command again: what was downloaded is kept and resumed.',
  ],
  EDQUOT: [
    'the disk quota is used up',
    'Free some space and run the same command again: what was downloaded is kept and resumed.',
  ],
  EIO: ['an I/O error', 'Check the disk, or choose another folder with --dir.'],
  ELOOP: ['a link stands where orc writes', 'Remove the link, or choose another folder with --dir.'],
  EISDIR: ['a folder stands where a file should be', 'Move it away, or choose another folder with --dir.'],
};

/** Is this an error of the disk or of a path, which no retry helps? */
export function isDiskFailure(err: unknown): err is NodeJS.ErrnoException {
  const code = (err as NodeJS.ErrnoException)?.code;
  return typeof code === 'string' && code in WHY;
}

/**
 * An errno from writing under `dir` as one line naming the folder and the fix. A full disk while data flows
 * is a failure of the pull (exit 1, partial files kept to resume); anything else is the folder's (exit 4).
 */
export function diskError(err: NodeJS.ErrnoException, dir: string, hint?: string): DiskError {
  const code = err.code ?? 'EIO';
  const [why, usual] = WHY[code] ?? WHY.EIO!;
  const fix = hint ?? usual;
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  return new DiskError(`cannot write to ${dir}: ${why} (${code})`, fix, full ? EXIT.failure : EXIT.auth);
}

/**
 * `mkdir -p`, one level at a time, with plain answers: a path that exists must be a folder (a link to one is
 * taken, as the user named it); a level that cannot be made fails at once instead of looping.
 */
export async function makeDir(dir: string, mode = 0o755): Promise<void> {
  const path = resolve(dir);
  const missing: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    const s = await stat(p).catch((e: NodeJS.ErrnoException) => e);
    if (!(s instanceof Error)) {
      if (!s.isDirectory())
        throw Object.assign(new Error(`${p} is not a folder`), { code: p === path ? 'EEXIST' : 'ENOTDIR' });
      break;
    }
    if (s.code !== 'ENOENT') throw s;
    missing.unshift(p);
    if (p === parse(p).root) break;
  }
  for (const p of missing) {
    try {
      await mkdir(p, { mode });
    } catch (err) {
      // Made meanwhile by another process: fine if it is a folder.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && (await stat(p).catch(() => null))?.isDirectory())
        continue;
      throw err;
    }
  }
}

/**
 * A folder orc made (or will make) inside `parent`: created if absent; if present it must be a real folder,
 * not a link to somewhere else. Answers false (and creates nothing) when something else of the user's is there.
 */
export async function ownDir(path: string, mode = 0o755): Promise<boolean> {
  try {
    await mkdir(path, { mode });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return (await lstat(path)).isDirectory();
}

/** What stands at `path`, without following a link: null when nothing does. */
export async function lstatOrNull(path: string): Promise<Stats | null> {
  return lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** A new partial file, created exclusively and never through a link. */
export function createPartial(path: string): Promise<FileHandle> {
  return open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644);
}

/** An existing partial file to append to: never through a link, and only a plain file. */
export async function appendPartial(path: string): Promise<FileHandle> {
  const fh = await open(path, constants.O_WRONLY | constants.O_APPEND | NOFOLLOW);
  if (!(await fh.stat()).isFile()) {
    await fh.close();
    throw Object.assign(new Error(`${path} is not a plain file`), { code: 'EISDIR' });
  }
  return fh;
}

/** A file to read (a partial to resume, a finished one to check): never through a link, only a plain file. */
export async function openToRead(path: string): Promise<FileHandle | null> {
  const fh = await open(path, constants.O_RDONLY | NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ELOOP') return null;
    throw err;
  });
  if (fh && !(await fh.stat()).isFile()) {
    await fh.close();
    return null;
  }
  return fh;
}

/**
 * Puts a finished partial file in its place. Over nothing or over a plain file (an earlier pull's) it is an
 * atomic rename; over a folder, a link or anything else it is refused and nothing is touched.
 */
export async function placeFile(partial: string, path: string, shown: string): Promise<void> {
  await plainFileOrNothing(path, `${shown}: `);
  await rename(partial, path);
}

/**
 * What stands at `path` if it is a plain file, or null if nothing does; anything else of the user's (a folder,
 * a link) is refused, named, and left as it is.
 */
export async function plainFileOrNothing(path: string, prefix = ''): Promise<Stats | null> {
  const there = await lstatOrNull(path);
  if (there && !there.isFile()) {
    const what = there.isDirectory()
      ? 'a folder'
      : there.isSymbolicLink()
        ? 'a link'
        : 'something that is not a plain file';
    throw new CollisionError(
      `${prefix}${what} of yours stands at ${path}; it was left as it is and this file was not written (move it away, or pull into another --dir)`,
    );
  }
  return there;
}

/** A partial file given up on (unlink: never a folder, never what a link points to). */
export async function dropPartial(path: string): Promise<void> {
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

/** Removes the partial folders a pull made, if nothing is left in them (rmdir never removes anything else). */
export async function tidyPartials(dir: string, subdirs: Iterable<string>): Promise<void> {
  const root = join(dir, PARTIAL_DIR);
  for (const sub of subdirs) await rmdir(join(root, sub)).catch(() => {});
  await rmdir(root).catch(() => {});
}
