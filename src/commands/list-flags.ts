// The flags of every list command: how many items, or all of them.
import { flag } from './define.js';
import { UsageError } from '../exit/errors.js';

/** How many a list shows when neither --limit nor --all is given. */
export const DEFAULT_LIMIT = 20;

export const LIST_FLAGS = {
  // No default here: a --limit typed beside --all must be told from one left out.
  limit: flag.int('n', `at most this many (default ${DEFAULT_LIMIT})`, { min: 1 }),
  all: flag.bool('every one, page after page'),
} as const;

/** At most how many to list: --limit, every one for --all, else the default. Both given say two things. */
export function listLimit(flags: { limit?: number | undefined; all?: boolean | undefined }): number {
  if (flags.all && flags.limit !== undefined) {
    const message = '--all and --limit do not go together: --all lists every one, --limit at most that many';
    throw Object.assign(new UsageError(message, 'Use one of them.'), { field: '--limit' });
  }
  return flags.all ? Infinity : (flags.limit ?? DEFAULT_LIMIT);
}
