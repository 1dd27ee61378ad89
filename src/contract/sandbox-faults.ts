// A fault of the sandbox's (CONTRACT.md, "Sandbox control"), as `/_sandbox/faults` takes and answers it:
// the sandbox applies it (src/sandbox/control.ts), `orc sandbox fault` sends and shows it.

/** A fault, as added: which requests it takes, what it does, how often. */
export interface FaultSpec {
  /** `METHOD /path`, with `{id}`-style segments matching any one segment: `GET /v1/runs/{run}/events`. */
  route?: string;
  /** Instead of a route: every delivery attempt to this webhook is answered by the sandbox itself as failed. */
  webhook?: string;
  /** Answer with this status and the error envelope the contract gives it (429 carries Retry-After: 1). */
  status?: number;
  /** Wait this long (ms) before answering. */
  latency_ms?: number;
  /** Reset the connection instead of answering. */
  reset?: boolean;
  /** An event stream is cut after this many events. */
  cut_after?: number;
  /** Only this many times (then it is spent); default every time. */
  times?: number;
  /** Only with this chance (0 to 1) each time. */
  probability?: number;
  /** The seed of the chance: the same seed, the same requests hit. */
  seed?: number;
}

export interface Fault extends FaultSpec {
  id: string;
  /** How many times it was applied. */
  applied: number;
}
