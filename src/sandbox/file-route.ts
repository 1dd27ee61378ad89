// The signed file URLs: a file of a binary artifact, checked (signature, expiry), streamed from its
// generator a slice at a time, with Range, never held whole in memory.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../lib/clock.js';
import { flatMemory } from '../lib/memory.js';
import type { Artifacts } from './artifacts.js';
import { Failure } from './failure.js';
import { parseRange } from './files.js';
import type { Store } from './store.js';

/**
 * Answers GET or HEAD of a /files/… path (the router has taken the method and decoded `file`, the path's
 * segments after /files: run, kind, name); `common` holds the headers every answer carries.
 */
export async function serveFile(
  { artifacts, store, clock }: { artifacts: Artifacts; store: Store; clock: Clock },
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  file: string[],
  query: URLSearchParams,
  common: string[],
): Promise<void> {
  const verdict = artifacts.verify(path, query.get('expires'), query.get('signature'), clock.now());
  if (verdict === 'invalid') throw new Failure('signed_url_invalid', 'the signature of this file URL is not valid');
  if (verdict === 'expired')
    throw new Failure('signed_url_expired', 'this file URL has expired; ask for the artifact again for a fresh one');
  const [runId, kind, name] = file.length === 3 ? file : [];
  const rec = store.runs.get(runId ?? '');
  const f = rec && kind && name ? artifacts.lookup(rec, kind, name) : null;
  if (!f) throw new Failure('route_not_found', 'no such file');
  const size = f.meta.size;
  const etag = `"${f.meta.sha256}"`;
  // The client's copy is this file: nothing to send (RFC 9110 13.1.2; weak comparison, so W/ is ignored).
  if (matches(req.headers['if-none-match'], etag, false)) {
    res.writeHead(304, [...common, 'ETag', etag, 'Cache-Control', 'private, no-store']);
    return void res.end();
  }
  // A Range goes with If-Range only while the validator is this file's (strong comparison; a date never
  // matches, for there is no Last-Modified): else the whole file, so a stale piece is never spliced in.
  const ifRange = [req.headers['if-range'] ?? []].flat().join(', ') || undefined;
  const range = ifRange === undefined || matches(ifRange, etag, true) ? parseRange(req.headers.range, size) : null;
  if (range === 'unsatisfiable') {
    throw new Failure(
      'range_not_satisfiable',
      `the range ${req.headers.range} is outside the file (${size} bytes)`,
      undefined,
      { 'Content-Range': `bytes */${size}` },
    );
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const headers = [
    ...common,
    'Content-Type',
    f.meta.content_type,
    'Accept-Ranges',
    'bytes',
    'ETag',
    etag,
    'Cache-Control',
    'private, no-store',
    'Content-Disposition',
    `attachment; filename="${f.meta.name.replace(/"/g, '')}"`,
    'Content-Length',
    String(end - start + 1),
  ];
  if (range) headers.push('Content-Range', `bytes ${start}-${end}/${size}`);
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === 'HEAD') return void res.end();
  // Streamed from the generator a slice at a time, waiting for the client to take each: memory stays flat
  // (and each slice, fresh from the cipher, is collected while young: memory.ts).
  const flat = flatMemory();
  for await (const piece of f.open(start, end)) {
    if (res.destroyed) return;
    if (!res.write(piece)) await untilDrained(res);
    flat(piece.length);
  }
  res.end();
}

/** Whether a validator header (`If-None-Match`: a list or `*`; `If-Range`: one tag or a date) names `etag`.
 * Strong comparison: both tags must be strong and the same. */
function matches(header: string | undefined, etag: string, strong: boolean): boolean {
  if (header === undefined) return false;
  if (strong) return header.trim() === etag;
  return header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Until the client has taken what was written, or has gone; both listeners removed either way (a slow
 * download waits thousands of times on one response). */
function untilDrained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
