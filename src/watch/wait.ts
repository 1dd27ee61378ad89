// Waiting for a run: until it waits at a gate, or until it ends. One loop for the MCP server's wait_for_run and
// the library's runs.waitFor: the run as it is now, then the watch engine's stream, each gate or end it tells
// checked against the run as it is then (the stream replays the run's history first: a gate decided long ago
// must not end the wait).
import { TERMINAL_STATUSES } from '../contract/events.js';
import type { Event, Run } from '../contract/schemas.js';
import type { Api } from '../api/index.js';
import { watchRun } from './engine.js';

export interface RunWaitOptions {
  /** `gate`: until the run waits at a gate or has ended; `end`: until it has ended. */
  until: 'gate' | 'end';
  /** Ends the wait early: it then resolves null. */
  signal?: AbortSignal;
  /** The run as it was when the wait began (before any event). */
  started?(run: Run): void;
  /** Each run.* event the stream tells on the way (its history first), awaited before the next. */
  onEvent?(event: Event): void | Promise<void>;
}

/** Whether the run is where the wait ends. */
export function reachedWait(run: Run, until: 'gate' | 'end'): boolean {
  return (
    TERMINAL_STATUSES.has(run.status) ||
    (until === 'gate' && run.status === 'awaiting_approval' && run.gate_pending !== null)
  );
}

/** The run once it is where the wait ends; null when `signal` ended the wait first. */
export async function waitForRun(api: Api, runId: string, o: RunWaitOptions): Promise<Run | null> {
  const now = await api.runs.retrieve(runId);
  if (reachedWait(now, o.until)) return now;
  o.started?.(now);
  try {
    for await (const item of watchRun(api, runId, o.signal ? { signal: o.signal } : {})) {
      if (item.kind === 'event') await o.onEvent?.(item.event);
      if (item.kind !== 'gate_pending' && item.kind !== 'ended') continue;
      const run = await api.runs.retrieve(runId);
      if (reachedWait(run, o.until)) return run;
    }
  } catch (err) {
    if (!o.signal?.aborted) throw err;
  }
  if (o.signal?.aborted) return null;
  // The stream is over (the service had nothing more to send): the run as it is.
  const run = await api.runs.retrieve(runId);
  return reachedWait(run, o.until) ? run : null;
}
