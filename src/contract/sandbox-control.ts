// The shapes of the sandbox's admin API (CONTRACT.md, "Sandbox control") that both sides read: a fault, as
// `/_sandbox/faults` takes and answers it, and an entry of the journal, as `/_sandbox/logs` answers it. The
// sandbox makes them (src/sandbox/control.ts); `orc sandbox fault|logs` send and show them.

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

/** What a fault does, in words, for `orc sandbox fault list` and the console alike: `status 500`, `1 time`. */
export function faultEffects(f: FaultSpec): string[] {
  return [
    f.status ? `status ${f.status}` : '',
    f.latency_ms ? `latency ${f.latency_ms} ms` : '',
    f.reset ? 'reset' : '',
    f.cut_after ? `cut after ${f.cut_after}` : '',
    f.times ? `${f.times} ${f.times === 1 ? 'time' : 'times'}` : '',
    f.probability !== undefined ? `p ${f.probability}` : '',
  ].filter(Boolean);
}

/** A request the sandbox answered, or a webhook delivery attempt it made. */
export type JournalEntry =
  | {
      seq: number;
      at: string;
      type: 'request';
      method: string;
      path: string;
      status: number;
      ms: number;
      request_id: string;
      idempotency_key: string | null;
      fault: string | null;
    }
  | {
      seq: number;
      at: string;
      type: 'delivery';
      webhook_id: string;
      delivery_id: string;
      url: string;
      status: number | null;
      ms: number;
      error: string | null;
      fault: string | null;
    };
