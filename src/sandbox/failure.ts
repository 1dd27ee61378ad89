// A request the sandbox refuses: one error code of the contract, with the field it concerns.
import type { $ZodIssue } from 'zod/v4/core';
import { ERROR_CODES, type ErrorCode } from '../contract/errors.js';

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

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** The first zod issue as a contract error: `missing_field` when nothing was there, else `invalid_value`. */
export function failureFromZod(error: { issues: readonly $ZodIssue[] }, input: unknown, prefix: readonly PropertyKey[] = []): Failure {
  const issue = error.issues[0]!;
  const path = [...prefix, ...issue.path];
  const field = path.map(String).join('.');
  // Absent, or a required string left empty: both are "missing" to the person who sent it.
  const missing =
    (issue.code === 'custom' && (issue.params as { missing?: boolean } | undefined)?.missing) ||
    (issue.code !== 'custom' && valueAt(input, issue.path) === undefined) ||
    (issue.code === 'too_small' && issue.origin === 'string' && Number(issue.minimum) === 1);
  if (missing) return new Failure('missing_field', `${field} is required`, field);
  let message = issue.message;
  if (issue.code === 'invalid_value' && 'values' in issue) message = `must be one of ${(issue.values as unknown[]).map((v) => String(v)).join(', ')}`;
  else if (issue.code === 'too_small' && issue.origin === 'string') message = 'must not be empty';
  else message = message.replace(/^Invalid input: /, '');
  return new Failure('invalid_value', `${field || 'body'}: ${message}`, field || undefined);
}
