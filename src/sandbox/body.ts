// Reading a request body within the limits of CONTRACT.md: 1 MiB, 30 s from the headers, JSON nesting
// at most 64 levels, and no `__proto__`, `constructor` or `prototype` key anywhere.
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../lib/clock.js';
import { MAX_BODY_BYTES, MAX_DEPTH, forbiddenKey, nestingDepth } from '../contract/limits.js';
import { Failure } from './failure.js';

export { MAX_BODY_BYTES };

/** The body as JSON (undefined when empty), or a Failure naming what is wrong. Read with plain listeners
 * rather than an async iterator and a raced timer: a small body costs one callback, not a chain of promises. */
export function readJsonBody(req: IncomingMessage, timeoutMs: number, clock: Clock): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (err: unknown) => {
      cancelTimer();
      req.off('data', onData).off('end', onEnd).off('error', finish).off('close', onClose);
      if (err !== null) return reject(err);
      try {
        resolve(parseBody(req, chunks, size));
      } catch (failure) {
        reject(failure);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES)
        return finish(
          new Failure('body_too_large', `the request body is larger than ${MAX_BODY_BYTES} bytes`, undefined, {
            Connection: 'close',
          }),
        );
      chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    // Gone before the end: the same error a stream read would give (one log line, no answer).
    const onClose = () => finish(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    const cancelTimer = clock.timer(timeoutMs, () =>
      finish(
        new Failure(
          'request_timeout',
          `the request body did not arrive within ${Math.round(timeoutMs / 1000)} s`,
          undefined,
          { Connection: 'close' },
        ),
      ),
    );
    req.on('data', onData).on('end', onEnd).on('error', finish).on('close', onClose);
  });
}

function parseBody(req: IncomingMessage, chunks: Buffer[], size: number): unknown {
  if (size === 0) return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type && type !== 'application/json' && type !== 'application/merge-patch+json')
    throw new Failure('unsupported_media_type', `send JSON (application/json), not ${type}`);
  const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
  if (nestingDepth(text) > MAX_DEPTH)
    throw new Failure('invalid_json', `the request body nests deeper than ${MAX_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Failure('invalid_json', `the request body is not valid JSON: ${(err as Error).message}`);
  }
  // A key can spell a forbidden name only literally or with an escape: without either, nothing to walk.
  const bad = mayHoldForbiddenKey(text) ? forbiddenKey(value, []) : null;
  if (bad)
    throw new Failure('invalid_value', `${bad.path}: the key ${JSON.stringify(bad.key)} is not allowed`, bad.path);
  return value;
}

function mayHoldForbiddenKey(text: string): boolean {
  return (
    text.includes('\\') || text.includes('__proto__') || text.includes('constructor') || text.includes('prototype')
  );
}
