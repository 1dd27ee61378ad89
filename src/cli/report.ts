// How a failure is told: a line (and a next step) for a person, or, under --json, one JSON object on stderr
// for a script, `{ "error": { type, code, message, field?, request_id?, exit_code } }`, stdout left empty.
import {
  ApiConnectionError,
  ApiError,
  ClientSettingError,
  InvalidIdError,
  NotAnEventStreamError,
  RetryLaterError,
  StreamLostError,
  UnexpectedResponseError,
  UnsafeRequestError,
} from '../api/errors.js';
import {
  ConfigError,
  EnvironmentError,
  EXIT_CODES,
  FailedError,
  InterruptedError,
  OrcError,
  RefusedError,
  UsageError,
  exitCodeOf,
} from '../exit/errors.js';
import { Problem } from '../lib/problem.js';
import { escapeControls } from '../ui/io.js';
import { sanitize } from '../lib/sanitize.js';

export interface ErrorReport {
  type: string;
  code: string;
  message: string;
  field?: string;
  request_id?: string;
  /** The next step a person would have been told, when there is one. */
  hint?: string;
  exit_code: number;
}

/** orc's own errors and the client's problems, each with a type and a code a script can branch on. */
const KINDS: Array<[new (...a: any[]) => Error, string, string]> = [
  [UsageError, 'usage_error', 'invalid_usage'],
  [ConfigError, 'auth_error', 'configuration'],
  [ClientSettingError, 'auth_error', 'configuration'],
  [EnvironmentError, 'environment_error', 'environment'],
  [RefusedError, 'refused_error', 'refused'],
  [FailedError, 'failure', 'failed'],
  [InterruptedError, 'interrupted', 'interrupted'],
  [InvalidIdError, 'usage_error', 'invalid_id'],
  [UnsafeRequestError, 'auth_error', 'unsafe_request'],
  [RetryLaterError, 'rate_limit_error', 'retry_later'],
  [ApiConnectionError, 'connection_error', 'connection_failed'],
  [StreamLostError, 'connection_error', 'stream_lost'],
  [NotAnEventStreamError, 'api_error', 'not_an_event_stream'],
  [UnexpectedResponseError, 'api_error', 'unexpected_response'],
];

export function errorReport(err: unknown, exitCode = exitCodeOf(err)): ErrorReport {
  const message = (err as Error)?.message ?? String(err);
  const hint = err instanceof Problem && err.hint ? { hint: err.hint } : {};
  if (err instanceof ApiError)
    return {
      type: err.type,
      code: err.code,
      message,
      ...(err.field ? { field: err.field } : {}),
      ...(err.requestId ? { request_id: err.requestId } : {}),
      ...hint,
      exit_code: exitCode,
    };
  const kind = KINDS.find(([k]) => err instanceof k);
  const byExit = EXIT_CODES.find((e) => e.code === exitCode)?.name ?? 'failure';
  const [type, code] = kind
    ? [kind[1], kind[2]]
    : err instanceof Problem
      ? [`${byExit.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_error`, byExit]
      : ['internal_error', 'unexpected'];
  const field = err instanceof OrcError ? err.field : undefined;
  return {
    type,
    code: (err instanceof OrcError && err.code) || code,
    message,
    ...(field ? { field } : {}),
    ...hint,
    exit_code: exitCode,
  };
}

/** Tells a failure on stderr and answers its exit code. */
export function report(err: unknown, json: boolean, stderr: NodeJS.WritableStream, exitCode = exitCodeOf(err)): number {
  if (json) {
    // JSON escapes C0 controls itself; DEL, C1 and bidi controls are escaped too (as for every JSON orc prints).
    stderr.write(`${escapeControls(JSON.stringify({ error: errorReport(err, exitCode) }))}\n`);
    return exitCode;
  }
  if (err instanceof Problem) {
    stderr.write(`orc: ${sanitize(err.message)}\n`);
    if (err.hint) stderr.write(`${sanitize(err.hint)}\n`);
  } else stderr.write(`orc: unexpected error: ${sanitize((err as Error)?.stack ?? String(err))}\n`);
  return exitCode;
}
