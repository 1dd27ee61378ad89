// A page of a list (CONTRACT.md, Pages): newest first, `limit` 1–100, an opaque cursor.
import { Failure } from './failure.js';

/** A list oldest first, by position: an array, or a view of one (the store's run order) that is never copied. */
export interface Sequence<T> {
  readonly length: number;
  at(i: number): T | undefined;
  /** The seq at a position, when it is known without reading the item (a webhook's deliveries: seq-list.ts). */
  seqAt?(i: number): number;
}

/** `all` oldest first (ascending seq); answers the page of views after the cursor. The cursor's place is
 * found by bisection and only the page's items are read: a page of 100 out of 100,000 costs what it does
 * out of 100. */
export function page<T extends { seq: number }, V>(all: Sequence<T>, query: URLSearchParams, view: (item: T) => V) {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new Failure('invalid_value', 'limit must be a whole number from 1 to 100', 'limit');
  const cursor = query.get('cursor');
  let before = Number.POSITIVE_INFINITY;
  if (cursor) {
    const m = /^c(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
    if (!m) throw new Failure('invalid_value', 'cursor is not one this service gave out', 'cursor');
    before = Number(m[1]);
  }
  // The last position whose seq is below the cursor's.
  const seqAt = all.seqAt ?? ((i: number) => all.at(i)!.seq);
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqAt(mid) < before) lo = mid + 1;
    else hi = mid;
  }
  const data: V[] = [];
  let i = lo - 1;
  let lastSeq = 0;
  for (; i >= 0 && data.length < limit; i--) {
    const item = all.at(i)!;
    data.push(view(item));
    lastSeq = item.seq;
  }
  const hasMore = i >= 0;
  return {
    data,
    next_cursor: hasMore ? Buffer.from(`c${lastSeq}`, 'latin1').toString('base64url') : null,
    has_more: hasMore,
  };
}
