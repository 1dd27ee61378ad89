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
    return JSON.stringify({ error: { type: this.type, code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) } });
  }
}

/** The first zod issue as a contract error: `missing_field` when nothing was there, else `invalid_value`. */
export function failureFromZod(error: { issues: readonly $ZodIssue[] }, input: unknown, prefix: readonly PropertyKey[] = []): Failure {
  const { field, missing, message } = describeIssue(error.issues, input, prefix);
  if (missing) return new Failure('missing_field', `${field} is required`, field);
  return new Failure('invalid_value', `${field || 'body'}: ${message}`, field || undefined);
}
