// Reading a request body within the limits of CONTRACT.md: 1 MiB, 30 s from the headers, JSON nesting
// at most 64 levels, and no `__proto__`, `constructor` or `prototype` key anywhere.
import type { IncomingMessage } from 'node:http';
import { MAX_DEPTH, forbiddenKey, nestingDepth } from '../contract/limits.js';
import { Failure } from './failure.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The body as JSON (undefined when empty), or a Failure naming what is wrong. */
export async function readJsonBody(req: IncomingMessage, timeoutMs: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Failure('request_timeout', `the request body did not arrive within ${Math.round(timeoutMs / 1000)} s`, undefined, { Connection: 'close' })), timeoutMs);
  });
  const read = (async () => {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw new Failure('body_too_large', `the request body is larger than ${MAX_BODY_BYTES} bytes`, undefined, { Connection: 'close' });
      chunks.push(chunk);
    }
  })();
  try {
    await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
    read.catch(() => {}); // a body abandoned by the timeout ends however it ends
  }
  if (size === 0) return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type && type !== 'application/json' && type !== 'application/merge-patch+json') throw new Failure('unsupported_media_type', `send JSON (application/json), not ${type}`);
  const text = Buffer.concat(chunks).toString('utf8');
  if (nestingDepth(text) > MAX_DEPTH) throw new Failure('invalid_json', `the request body nests deeper than ${MAX_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Failure('invalid_json', `the request body is not valid JSON: ${(err as Error).message}`);
  }
  const bad = forbiddenKey(value, []);
  if (bad) throw new Failure('invalid_value', `${bad.path}: the key ${JSON.stringify(bad.key)} is not allowed`, bad.path);
  return value;
}
