// The flags of every list command: how many items, or all of them.
import { flag } from '../cli/spec.js';

export const LIST_FLAGS = {
  limit: flag.int('n', 'at most this many', { min: 1, default: 20 }),
  all: flag.bool('every one, page after page'),
} as const;
