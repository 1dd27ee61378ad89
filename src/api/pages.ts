// Walking a list page after page, for the client's iterator and `orc api --paginate` alike: a service whose
// cursors come round again, or whose pages stop moving, ends the walk with a clear error (exit 1) instead of
// asking forever.
import { UnexpectedResponseError } from './errors.js';

export class PageWalk {
  private readonly seen = new Set<string>();
  private pages = 0;

  constructor(private readonly what: string) {}

  /**
   * The cursor of the next page, given this page's item count and what it says of more; null at the end.
   * Throws when the walk would never end.
   */
  next(items: number, hasMore: boolean, cursor: string | null): string | null {
    this.pages++;
    if (!hasMore || !cursor) return null;
    if (items === 0)
      throw new UnexpectedResponseError(
        `the pages of ${this.what} do not end: page ${this.pages} was empty yet said there is more; stopped after ${this.pages} pages`,
      );
    if (this.seen.has(cursor))
      throw new UnexpectedResponseError(
        `the pages of ${this.what} do not end: the cursor ${JSON.stringify(cursor.slice(0, 40))} came again on page ${this.pages}; stopped there`,
      );
    this.seen.add(cursor);
    return cursor;
  }
}
