// What can go wrong talking to the service, as typed errors. They say what happened; what it means for the
// exit code is the CLI's to decide (src/errors.ts, exitCodeOf).
import { Problem } from '../problem.js';

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
export class ApiError extends Problem {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  readonly field: string | undefined;
  readonly requestId: string | null;

  constructor(init: ApiErrorInit, hint?: string) {
    super(init.message, hint);
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.field = init.field;
    this.requestId = init.requestId;
  }
}

/** No answer at all: refused, reset, timed out, DNS. */
export class ApiConnectionError extends Problem {}

/** A 2xx answer that is not what the contract says. */
export class UnexpectedResponseError extends Problem {}

/** The service asked us to come back later than we are willing to wait. */
export class RetryLaterError extends Problem {}

/** A request orc will not make: a key over plain http to another host, a redirect elsewhere. */
export class UnsafeRequestError extends Problem {}

/** An id that cannot go into a path (empty, `.`, `..`, a slash or a control character): nothing was sent. */
export class InvalidIdError extends Problem {}

/** The event stream could not be had again. */
export class StreamLostError extends Problem {}

/** What answered is not an event stream (a proxy that buffers or strips it): the caller may poll instead. */
export class NotAnEventStreamError extends Problem {}
