// The shapes of the sandbox's admin API (CONTRACT.md, "Sandbox control") that both sides read, once: what each
// route under /_sandbox/ takes and answers (a fault, an entry of the journal, the clock, a trigger's result…).
// The sandbox makes them (src/sandbox/admin.ts, control.ts); `orc sandbox …`, `orc mcp --sandbox-tools` and
// the console send and show them. A whole answer is a type, not an interface, so that it is a plain JSON
// object to TypeScript too (an MCP tool hands it on as its data).
import type { Event, Run } from './schemas.js';

/** A fault, as added (`POST /_sandbox/faults`): which requests it takes, what it does, how often. */
export interface FaultParams {
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

/** A fault as `/_sandbox/faults` answers it. */
export interface Fault extends FaultParams {
  id: string;
  /** How many times it was applied. */
  applied: number;
}

/** What a fault does, in words, for `orc sandbox fault list` and the console alike: `status 500`, `1 time`. */
export function faultEffects(f: FaultParams): string[] {
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
      /** The trace id of the request's W3C traceparent, when it carried a well-formed one. */
      trace_id: string | null;
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

/** `GET /_sandbox/faults`. */
export type FaultList = {
  data: Fault[];
};

/** `DELETE /_sandbox/faults/{id}`. */
export type FaultRemoved = {
  id: string;
  removed: true;
};

/** `DELETE /_sandbox/faults`. */
export type FaultsCleared = {
  cleared: true;
};

/** `GET /_sandbox/logs`: the entries after `?after=N`, and the last one's seq (to follow on from). */
export type JournalPage = {
  data: JournalEntry[];
  last: number;
};

/** A run the pipeline still moves, as the clock lists it. */
export interface MovingRun {
  id: string;
  status: string;
  stage: string;
  gate_pending: string | null;
}

/** `GET /_sandbox/clock`: where the sandbox's time is, and the runs it still moves. */
export type ClockView = {
  mode: 'manual' | 'real';
  now: string;
  next_due: string | null;
  runs: MovingRun[];
};

/** `POST /_sandbox/clock/advance`: the whole clock by a duration, or one run by a duration or to a point. */
export interface AdvanceParams {
  /** A duration ("90s", "3h") or a number of ms. */
  by?: string | number;
  run?: string;
  /** With `run`: a stage, `gate:NAME` or `end`. */
  to?: string;
}

/** What an advance answers: the clock after it, with the timers it fired, or the one run it moved. */
export type AdvanceResult = ClockView & {
  fired?: number;
  run?: Run;
  /** With `to`: whether the run got there. */
  reached?: boolean;
  ticks?: number;
};

/** `POST /_sandbox/trigger`: an event made for real; without `run`, on a new fixture run. */
export interface TriggerParams {
  kind: string;
  run?: string;
  stage?: string;
  gate?: string;
  /** `code: message`, for run.failed. */
  error?: string;
  reason?: string;
  /** false: run.scored with a scorecard that does not pass. */
  passed?: boolean;
}

/** What a trigger answers: the run, and the event it made. */
export type TriggerResult = {
  run: Run;
  event: Event;
};

/** What `GET /_sandbox/stats` answers: the sandbox's memory (bytes, as Node counts it) and what its webhooks'
 * dispatcher holds in memory now. Lets a long-running sandbox be watched, and a test tell memory that grows
 * with the work (the live heap) from memory that only churns. */
export interface SandboxStats {
  memory: { rss: number; heap_used: number; heap_total: number; external: number };
  webhooks: { deliveries_in_play: number; events_queued: number; webhooks_behind: number };
}

/** `POST /_sandbox/reset`. */
export type ResetDone = {
  reset: true;
};

/** `POST /_sandbox/console`: a one-time link to the web console. */
export type ConsoleLink = {
  url: string;
  expires_at: string;
};

/** `GET /_sandbox/export`: how many records the snapshot holds, sent beside it as `X-Snapshot-Runs`,
 * `X-Snapshot-Webhooks` and `X-Snapshot-Deliveries` (the body is one JSON document of any size). */
export type SnapshotCounts = {
  runs: number;
  webhooks: number;
  deliveries: number;
};
