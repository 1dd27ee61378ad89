// A page of a list (CONTRACT.md, Pages): newest first, `limit` 1–100, an opaque cursor.
import { Failure } from './failure.js';

/** `all` oldest first; answers the page of views after the cursor. */
export function page<T extends { seq: number }, V>(all: readonly T[], query: URLSearchParams, view: (item: T) => V) {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new Failure('invalid_value', 'limit must be a whole number from 1 to 100', 'limit');
  const cursor = query.get('cursor');
  let before = Number.POSITIVE_INFINITY;
  if (cursor) {
    const m = /^c(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
    if (!m) throw new Failure('invalid_value', 'cursor is not one this service gave out', 'cursor');
    before = Number(m[1]);
  }
  const data: V[] = [];
  let i = all.length - 1;
  while (i >= 0 && all[i]!.seq >= before) i--;
  let lastSeq = 0;
  for (; i >= 0 && data.length < limit; i--) {
    data.push(view(all[i]!));
    lastSeq = all[i]!.seq;
  }
  const hasMore = i >= 0;
  return { data, next_cursor: hasMore ? Buffer.from(`c${lastSeq}`, 'latin1').toString('base64url') : null, has_more: hasMore };
}
