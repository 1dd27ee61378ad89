// What can go wrong talking to the service, as typed errors carrying the exit code CONTRACT.md gives them.
import { EXIT, OrcError } from '../errors.js';

export interface ApiErrorInit {
  status: number;
  type: string;
  code: string;
  message: string;
  field?: string | undefined;
  requestId: string | null;
  retryAfterS?: number | undefined;
}

/** The service answered with an error: an envelope, or something else we report by status and request id. */
export class ApiError extends OrcError {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  readonly field: string | undefined;
  readonly requestId: string | null;
  override readonly exitCode: number;

  constructor(init: ApiErrorInit, hint?: string) {
    super(init.message, hint);
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.field = init.field;
    this.requestId = init.requestId;
    this.exitCode = exitCodeFor(init.status);
  }
}

/** 401/403: fix the key or profile (4). 400: fix the input (2). Other 4xx: refused (3). 5xx and the rest: 1. */
export function exitCodeFor(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 400) return EXIT.usage;
  if (status >= 400 && status < 500) return EXIT.refused;
  return EXIT.failure;
}

/** No answer at all: refused, reset, timed out, DNS (exit 1). */
export class ApiConnectionError extends OrcError {
  override readonly exitCode = EXIT.failure;
}

/** A 2xx answer that is not what the contract says (exit 1). */
export class UnexpectedResponseError extends OrcError {
  override readonly exitCode = EXIT.failure;
}

/** The service asked us to come back later than we are willing to wait (exit 3). */
export class RetryLaterError extends OrcError {
  override readonly exitCode = EXIT.refused;
}

/** A request orc will not make: a key over plain http to another host, a redirect elsewhere (exit 4). */
export class UnsafeRequestError extends OrcError {
  override readonly exitCode = EXIT.auth;
}
