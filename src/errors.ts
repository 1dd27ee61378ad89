// Typed errors and the exit codes of CONTRACT.md. Commands throw these; only main.ts turns them into an exit.

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  refused: 3,
  auth: 4,
  runEnded: 5,
  gatePending: 6,
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class OrcError extends Error {
  readonly exitCode: number = EXIT.failure;
  constructor(
    message: string,
    /** A next step for the user, printed on its own line. */
    readonly hint?: string,
  ) {
    super(message);
  }
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
