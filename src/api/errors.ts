// What can go wrong talking to the service, as typed errors. They say what happened; what it means for the
// exit code is the CLI's to decide (src/exit/errors.ts, exitCodeOf).
import { Problem } from '../lib/problem.js';
import { errorEnvelope } from '../contract/shapes.js';
import { STATUS_TEXT } from '../lib/http1.js';
import { parseServiceJson } from '../lib/sanitize.js';

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

/** The service's errors by status, so a caller can catch the one it handles: `err instanceof NotFoundError`. */
export class BadRequestError extends ApiError {}
export class AuthenticationError extends ApiError {}
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ConflictError extends ApiError {}
export class RateLimitError extends ApiError {}
export class InternalServerError extends ApiError {}

/** The class of an error answer with this status (ApiError for a status of no class of its own). */
function errorClass(status: number): typeof ApiError {
  const byStatus: Record<number, typeof ApiError> = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
  };
  return byStatus[status] ?? (status >= 500 ? InternalServerError : ApiError);
}

/** No answer at all: refused, reset, timed out, DNS. */
export class ApiConnectionError extends Problem {}

/** A setting of the client's own that cannot be used (a proxy variable that is not a URL, an unreadable CA
 * file): found before anything is sent, and fixed by the person, not by waiting. */
export class ClientSettingError extends Problem {}

/** The client was closed (its sandbox stopped): what was in flight ended, and nothing more is sent. */
export class ClientClosedError extends Problem {}

/** A refused connection to this machine: nothing listens there, most likely a sandbox that is not running. */
export function nothingListens(url: URL): ApiConnectionError {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const start = `orc sandbox start --port ${port}${url.protocol === 'https:' ? ' --tls' : ''}`;
  return new ApiConnectionError(
    `cannot reach ${url.origin}: nothing listens there (connection refused)`,
    `If it is the local sandbox, start it: \`${start}\` (with --detach, in the background).`,
  );
}

/** The service's certificate is not one orc trusts: never retried: a configuration to fix, not a network to wait out. */
export class UntrustedCertificateError extends Problem {}

/** Node's codes for a certificate that does not verify (its chain, its dates or its name). */
export const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_REJECTED',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** A certificate orc does not trust, said with the host and the ways to fix it. */
export function untrustedCertificate(url: URL, err: unknown): UntrustedCertificateError {
  const e = err as NodeJS.ErrnoException;
  const words: Record<string, string> = {
    ERR_TLS_CERT_ALTNAME_INVALID: `it is not for the name ${url.hostname}`,
    CERT_HAS_EXPIRED: 'it has expired',
    CERT_NOT_YET_VALID: 'it is not valid yet',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
    SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a self-signed CA orc does not trust',
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'it is signed by a CA orc does not trust',
    UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'it is signed by a CA orc does not trust',
    CERT_REVOKED: 'it has been revoked',
  };
  const why = words[e.code ?? ''] ?? `${(e.message || e.code || 'unknown').replace(/[.;].*$/s, '')} (${e.code})`;
  return new UntrustedCertificateError(
    `the certificate of ${url.host} is not trusted: ${why}; nothing was sent`,
    `If it is signed by a CA of your own (a sandbox started with --tls prints its CA's path), trust that CA: NODE_EXTRA_CA_CERTS=<ca.pem> orc …, or \`orc profile add <name> --ca-file <ca.pem>\`. If you expected a public certificate, something is between you and ${url.hostname}.`,
  );
}

/** A 2xx answer that is not what the contract says. */
export class UnexpectedResponseError extends Problem {}

/** The service asked us to come back later than we are willing to wait. */
export class RetryLaterError extends Problem {}

/** A request orc will not make: a key over plain http to another host, a redirect elsewhere. */
export class UnsafeRequestError extends Problem {}

/** An id that cannot go into a path (empty, `.`, `..`, a slash or a control character): nothing was sent. */
export class InvalidIdError extends Problem {}

/** Input the library's caller gave that the service would refuse (a misspelled gate, a missing pitch), found
 * before anything was sent; `field` names it. */
export class ValidationError extends Problem {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The event stream could not be had again. */
export class StreamLostError extends Problem {}

/** What answered is not an event stream (a proxy that buffers or strips it): the caller may poll instead. */
export class NotAnEventStreamError extends Problem {}

/** `(HTTP 404, run_not_found, request id req_…)`, or undefined when there is nothing to say. */
export function requestLine(requestId: string | null, status?: number, code?: string): string | undefined {
  const parts = [status ? `HTTP ${status}` : null, code ?? null, requestId ? `request id ${requestId}` : null].filter(
    Boolean,
  );
  return parts.length ? `(${parts.join(', ')})` : undefined;
}

/** A network error code in words. */
export function describeNetwork(code: string): string {
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    EPIPE: 'connection closed',
    ETIMEDOUT: 'connection timed out',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'DNS lookup failed',
    UND_ERR_SOCKET: 'connection closed by the other side',
    UND_ERR_CLOSED: 'connection closed',
    UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
    UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for an answer',
    UND_ERR_BODY_TIMEOUT: 'timed out reading the answer',
  };
  return known[code] ?? code;
}

/** What broke an attempt, as a code and words: orc's own silence timer, or the network's error. */
export function networkFailure(
  err: unknown,
  attemptCut: boolean,
  attemptMs: number,
): { code: string; message: string } {
  if (attemptCut) return { code: 'ORC_ATTEMPT_TIMEOUT', message: `no answer within ${Math.round(attemptMs / 1000)} s` };
  const code = (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.name ?? '';
  if (code === 'ORC_PROXY') return { code, message: (err as Error).message };
  const words = describeNetwork(code);
  // A code orc has no words for: the error's own message says more than its name.
  return { code, message: words && words !== code ? words : (err as Error)?.message || code || String(err) };
}

/** An error answer as an ApiError: the service's envelope, or what came instead, by status and request id. */
export function parseError(
  status: number,
  text: string,
  contentType: string | null,
  requestId: string | null,
): ApiError {
  let e: ReturnType<typeof errorEnvelope> = null;
  try {
    e = errorEnvelope(parseServiceJson(text));
  } catch {
    e = null;
  }
  const Class = errorClass(status);
  if (e) {
    return new Class(
      { status, type: e.type, code: e.code, message: e.message, field: e.field, requestId },
      requestLine(requestId, status, e.code),
    );
  }
  // A proxy's HTML page, an empty body, JSON of another shape: say what came, never parse further.
  const what =
    text.length === 0
      ? 'an empty body'
      : `${(contentType ?? 'unknown type').split(';')[0]}, ${Buffer.byteLength(text)} bytes`;
  return new Class(
    {
      status,
      type: status >= 500 ? 'api_error' : 'invalid_request_error',
      code: `http_${status}`,
      message:
        `the service answered ${status} ${STATUS_TEXT[status] ?? ''} (${what}, not the service's error format)`.replace(
          '  ',
          ' ',
        ),
      requestId,
    },
    requestLine(requestId, status),
  );
}
