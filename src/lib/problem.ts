// The base of every error orc explains to a person: a message and, often, a next step. It knows nothing of
// exit codes: the HTTP client and the sandbox raise problems of their own kinds, and the CLI alone decides
// what each one means for the exit code (src/exit/errors.ts, exitCodeOf).
export class Problem extends Error {
  constructor(
    message: string,
    /** A next step, in words (the CLI prints it on a line of its own). */
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
