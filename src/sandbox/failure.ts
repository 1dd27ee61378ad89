// A request the sandbox refuses: one error code of the contract, with the field it concerns.
import type { $ZodIssue } from 'zod/v4/core';
import { ERROR_CODES, type ErrorCode } from '../contract/errors.js';
import { describeIssue } from '../contract/issues.js';

export class Failure extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
  get type(): string {
    return ERROR_CODES[this.code].type;
  }
  toBody(): string {
    return JSON.stringify({
      error: { type: this.type, code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) },
    });
  }
}

/** The first zod issue as a contract error: `missing_field` when nothing was there, else `invalid_value`. */
export function failureFromZod(
  error: { issues: readonly $ZodIssue[] },
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): Failure {
  const { field, missing, message } = describeIssue(error.issues, input, prefix);
  if (missing) return new Failure('missing_field', `${field} is required`, field);
  return new Failure('invalid_value', `${field || 'body'}: ${message}`, field || undefined);
}

/**
 * What a failure of the sandbox's own storage means to a client: the database busy (retry at once), or the
 * disk full (SQLite's SQLITE_FULL, or ENOSPC/EDQUOT from a file it writes): 503 with Retry-After, saying
 * what to do, since nothing was applied and the same request will work once there is room. Null for
 * anything else (a bug: 500).
 */
/** A full disk's Retry-After: past the 30 s orc waits out, so orc says it at once instead of retrying for two
 * minutes (a disk does not empty itself in seconds); a client that waits, waits a minute. */
export const DISK_FULL_RETRY_S = '60';

export function storageFailure(err: unknown): Failure | null {
  const e = err as { message?: string; code?: string; errcode?: number } | null;
  const message = e?.message ?? '';
  if (/database is (locked|busy)/i.test(message))
    return new Failure('unavailable', 'the sandbox database is busy; retry shortly', undefined, { 'Retry-After': '1' });
  if (e?.errcode === 13 || /database or disk is full/i.test(message) || e?.code === 'ENOSPC' || e?.code === 'EDQUOT') {
    const full =
      "the sandbox's disk is full: nothing was changed; free some space where its data folder is, then retry";
    return new Failure('unavailable', full, undefined, { 'Retry-After': DISK_FULL_RETRY_S });
  }
  return null;
}
