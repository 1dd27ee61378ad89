// What `orc verify` finds when it holds a target against the contract: each divergence (an operation, where in
// the answer, what the contract says, what came), each route it could not read, and the report they make.
// The read-only checks (reads.ts, stream.ts) and the --write checks (write.ts) both report through a Probe.
import type { Api } from '../../api/index.js';
import type { RawAnswer } from '../../api/http.js';

/** One place the target differs from the contract. */
export interface Divergence {
  /** The operation as the OpenAPI document (contract/openapi.ts) names its path: `GET /v1/runs/{id}`,
   * `POST /v1/runs/{id}/cancel`, `SSE /v1/runs/{id}/events`, `WEBHOOK run.gate_pending`; a case of it in
   * parentheses after: `POST /v1/runs (replayed: …)`. Both halves (read-only and --write) use this. */
  operation: string;
  /** Where in the answer: a dotted path in the body (`data[].status`), `header X-Request-Id`, `status`,
   * `stream` (framing), `signature`. */
  path: string;
  /** What the contract says, in a few words: `one of running, awaiting_approval, …`, `a string`, `present`. */
  expected: string;
  /** What came, in a few words (a value quoted as JSON, cut to 80 characters). */
  got: string;
}

/** A route that could not be checked (a 403, a run with no artifacts yet): said per route, and verify goes on. */
export interface Skipped {
  operation: string;
  why: string;
}

export interface VerifyReport {
  /** The base URL checked (never the key). */
  target: string;
  /** The operations checked, in order. */
  checked: string[];
  divergences: Divergence[];
  skipped: Skipped[];
  /** Whether --write checks ran. */
  wrote: boolean;
}

/** What a check is given: the api (the CLI's own request path) and where to report. */
export interface Probe {
  api: Api;
  baseUrl: string;
  /** Ctrl-C: every request of a check carries it (one in flight ends at once), clean-up's do not. */
  signal?: AbortSignal;
  /** One request whatever its status, read whole: the raw layer (`orc api`'s), retried only when the target
   * says to wait (429, 503 with Retry-After), as the CLI's requests are. `undo`:
   * clean-up, which must still go after Ctrl-C, so it is sent without the signal. */
  raw(
    method: string,
    path: string,
    opts?: { body?: unknown; headers?: Record<string, string>; undo?: boolean },
  ): Promise<RawAnswer>;
  checked(operation: string): void;
  diverge(d: Divergence): void;
  skip(operation: string, why: string): void;
  /** Progress for a person at a terminal (stderr); nothing piped or under --json. */
  say(text: string): void;
  /** What the user must know whatever the output (something made that could not be undone): stderr always,
   * under --json as a warning line. */
  warn(text: string): void;
}
