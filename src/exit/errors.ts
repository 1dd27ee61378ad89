// Typed errors and the exit codes of CONTRACT.md, once: the table below is what `orc help exit-codes` and
// the README show, and EXIT is made from it. Commands throw these errors; the HTTP client and the sandbox
// throw problems of their own (src/lib/problem.ts), which exitCodeOf maps here. Only main.ts exits.
import {
  ApiConnectionError,
  ClientSettingError,
  ApiError,
  InvalidIdError,
  NotAnEventStreamError,
  RetryLaterError,
  StreamLostError,
  UnexpectedResponseError,
  UnsafeRequestError,
  UntrustedCertificateError,
} from '../api/errors.js';
import { Problem } from '../lib/problem.js';

export interface ExitCodeEntry {
  name: string;
  code: number;
  meaning: string;
  when: string;
  script: string;
}

export const EXIT_CODES = [
  {
    name: 'ok',
    code: 0,
    meaning: 'success',
    when: 'the command did what it was asked; for `watch` and `run create --watch`, the run was accepted',
    script: 'go on',
  },
  {
    name: 'failure',
    code: 1,
    meaning: 'failure',
    when: 'an unexpected or network failure, a 5xx after retries, an answer of the wrong shape; the machine (port in use, folder not writable); `sandbox status`: not running; `artifacts pull`: a file that failed or did not match its sha256; `webhook listen`: its webhook could not be kept',
    script: 'retry later, or report it with the request id from stderr',
  },
  {
    name: 'usage',
    code: 2,
    meaning: 'usage',
    when: 'a bad flag, argument or value (named on stderr), a missing one without a terminal to ask, or a 400 from the service; nothing was sent or changed',
    script: 'fix the command line; retrying the same one fails the same way',
  },
  {
    name: 'refused',
    code: 3,
    meaning: 'refused',
    when: 'the service refused: 404, 409, 422, 429 past what orc waits (a 4xx other than 400 and auth); a gate not pending; a locked spec; a scorecard or a named artifact kind not ready yet; a field `spec edit` sent and the service refused; a signature `webhook verify` finds invalid; any non-2xx answer to `orc api`',
    script: 'read the reason on stderr: the state of the run decides; do not retry blindly',
  },
  {
    name: 'auth',
    code: 4,
    meaning: 'auth or configuration',
    when: '401/403, no such profile, no key, a broken config folder, a key refused by the safety rules (plain http to another host, a live key to a sandbox, a live key without --live), a redirect to another host, a certificate orc does not trust, a proxy variable that is not a URL',
    script: 'fix the key or the profile (`orc doctor` says what is wrong)',
  },
  {
    name: 'runEnded',
    code: 5,
    meaning: 'run ended badly',
    when: '`watch`: the run ended rejected, failed or canceled (the reason on stderr)',
    script: 'the run is over; start another or look at why',
  },
  {
    name: 'gatePending',
    code: 6,
    meaning: 'gate pending',
    when: '`watch --until-gate`, `--on-gate exit`, or "stop watching" at the prompt: a gate awaits a decision and no one can be asked',
    script: 'decide the gate (`orc gate approve|reject`), then watch again',
  },
  {
    name: 'timedOut',
    code: 7,
    meaning: 'bounded wait ended',
    when: '`watch --max-wait` (and `run create --watch --max-wait`): the time ran out before the run ended or reached a gate; the run goes on',
    script: 'watch again later, or raise --max-wait',
  },
  {
    name: 'interrupted',
    code: 130,
    meaning: 'interrupted',
    when: 'Ctrl-C (SIGINT; SIGTERM for `webhook listen`), or Ctrl-D at a prompt; what was done is kept (a pull keeps its partial files in .orc-partial/)',
    script: 'run it again to go on',
  },
] as const satisfies readonly ExitCodeEntry[];

type Entry = (typeof EXIT_CODES)[number];
export const EXIT = Object.fromEntries(EXIT_CODES.map((e) => [e.name, e.code])) as {
  readonly [E in Entry as E['name']]: E['code'];
};
export type ExitCode = Entry['code'];

/** The exit code an error means: its own for orc's errors, by kind (and status) for the client's. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof OrcError) return err.exitCode;
  if (err instanceof ApiError) {
    // 401/403: fix the key or profile. 400: fix the input. Other 4xx: refused. 5xx and the rest: failure.
    if (err.status === 401 || err.status === 403) return EXIT.auth;
    if (err.status === 400) return EXIT.usage;
    return err.status >= 400 && err.status < 500 ? EXIT.refused : EXIT.failure;
  }
  if (err instanceof InvalidIdError) return EXIT.usage;
  if (err instanceof ClientSettingError) return EXIT.auth; // configuration, as ConfigError
  if (err instanceof RetryLaterError) return EXIT.refused;
  if (err instanceof UnsafeRequestError || err instanceof UntrustedCertificateError) return EXIT.auth;
  if (
    err instanceof ApiConnectionError ||
    err instanceof UnexpectedResponseError ||
    err instanceof StreamLostError ||
    err instanceof NotAnEventStreamError
  )
    return EXIT.failure;
  return EXIT.failure;
}

export class OrcError extends Problem {
  readonly exitCode: number = EXIT.failure;
  /** The flag or argument at fault (`--limit`, `<run>`), for a script reading the JSON error. */
  field?: string;
  /** A code more precise than the kind's (`unknown_option`), for the same reader. */
  code?: string;
}

/** Bad flags or input: the user's to fix (exit 2). */
export class UsageError extends OrcError {
  override readonly exitCode = EXIT.usage;
}

/** Missing or wrong configuration or credentials (exit 4). */
export class ConfigError extends OrcError {
  override readonly exitCode = EXIT.auth;
}

/** Something outside orc failed: a port in use, a folder that cannot be written, the network (exit 1). */
export class EnvironmentError extends OrcError {
  override readonly exitCode = EXIT.failure;
}

/** The service's state refuses what was asked: not pending, not ready, locked, invalid (exit 3). */
export class RefusedError extends OrcError {
  override readonly exitCode = EXIT.refused;
}

/** What was asked could not be done, and retrying may help: a download that kept failing (exit 1). */
export class FailedError extends OrcError {
  override readonly exitCode = EXIT.failure;
}

/** An error re-told with better words, keeping the exit code of the one it came from. */
export class RetoldError extends OrcError {
  override readonly exitCode: number;
  constructor(message: string, exitCode: number, hint?: string) {
    super(message, hint);
    this.exitCode = exitCode;
  }
}

/** The user pressed Ctrl-C (exit 130). */
export class InterruptedError extends OrcError {
  override readonly exitCode = EXIT.interrupted;
  constructor(message = 'interrupted') {
    super(message);
  }
}
