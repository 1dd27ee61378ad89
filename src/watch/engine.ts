// The watch engine: a run's events as typed values (connected, reconnecting, polling, event, log,
// gate_pending, ended), whatever the network does. Renderers only draw what this yields.
import { sleep } from '../lib/clock.js';
import { LOG_EVENT, TERMINAL_EVENTS, TERMINAL_STATUSES } from '../contract/events.js';
import type { Event, Run } from '../contract/schemas.js';
import { isPlainEvent } from '../contract/shapes.js';
import { loadSchemas } from '../api/http.js';
import type { Api } from '../api/index.js';
import { NotAnEventStreamError } from '../api/sse.js';
import { parseServiceJson } from '../lib/sanitize.js';

export type WatchEvent =
  | { kind: 'connected'; resumedAfter: number; reconnected: boolean }
  | { kind: 'reconnecting'; attempt: number; delayMs: number; reason: string }
  | { kind: 'polling'; reason: string }
  /** A run.* event: typed, and as the service sent it (`raw`); when polling, made from the run's state (`synthetic`). */
  | { kind: 'event'; seq: number | null; event: Event; raw?: unknown; synthetic?: boolean; text?: string }
  /** (`text`: the JSON as it came, for NDJSON to pass on without writing it anew.) */
  | { kind: 'log'; seq: number | null; event: Event; raw?: unknown; text?: string }
  | { kind: 'gate_pending'; gate: string; event: Event }
  | { kind: 'ended'; status: string; event: Event };

export type LogEvent = Extract<WatchEvent, { kind: 'log' }>;
/** What watchRunBatched yields: the log lines of one read of the stream come together. */
export type WatchItem = WatchEvent | { kind: 'logs'; items: LogEvent[] };

export interface WatchOptions {
  /** Start after this event id (resume); 0 replays the whole history. */
  afterSeq?: number;
  /** No complete message or keep-alive for this long counts as a dropped stream. */
  idleTimeoutMs?: number;
  /** Consecutive failed attempts before the stream counts as lost for good. */
  maxReconnects?: number;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  random?: () => number;
}

const TERMINAL_BY_STATUS: Record<string, string> = {
  accepted: 'run.accepted',
  rejected: 'run.rejected',
  failed: 'run.failed',
  canceled: 'run.canceled',
};

/** A run's events one by one (see watchRunBatched). */
export async function* watchRun(api: Api, runId: string, options: WatchOptions = {}): AsyncGenerator<WatchEvent> {
  for await (const item of watchRunBatched(api, runId, options)) {
    if (item.kind === 'logs') yield* item.items;
    else yield item;
  }
}

/**
 * A run's events, the log lines of one read of the stream handed on together: a build that logs thousands
 * of lines is not thousands of turns of an async generator (`orc watch` reads this; the rest, watchRun).
 */
export async function* watchRunBatched(api: Api, runId: string, options: WatchOptions = {}): AsyncGenerator<WatchItem> {
  const opts = { idleTimeoutMs: 45_000, maxReconnects: 8, pollIntervalMs: 2_000, ...options };
  let lastSeq = opts.afterSeq ?? 0;
  const stream = api.events.stream(runId, {
    lastEventId: lastSeq ? String(lastSeq) : null,
    idleMs: opts.idleTimeoutMs,
    maxReconnects: opts.maxReconnects,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.random ? { random: opts.random } : {}),
  });
  try {
    for await (const item of stream) {
      if (item.kind === 'open') {
        yield { kind: 'connected', resumedAfter: lastSeq, reconnected: item.reconnected };
        continue;
      }
      if (item.kind === 'reconnecting') {
        yield item;
        continue;
      }
      let logs: LogEvent[] = [];
      for (const m of item.messages) {
        const seq = m.id !== null && /^\d+$/.test(m.id) ? Number(m.id) : null;
        if (seq !== null && seq <= lastSeq) continue; // already seen: never twice
        const parsed = jsonOf(m.data);
        if (!parsed) continue; // not JSON: nothing a renderer could show
        const { raw, dirty } = parsed;
        // nearly every event is plain; the rest are read by the schema (loaded then)
        const event = isPlainEvent(raw) ? raw : (await loadSchemas()).readEvent(raw);
        if (!event) continue;
        if (api.http.tellsUnknowns) await api.http.tellUnknowns(`GET /v1/runs/${runId}/events`, raw, (s) => s.Event);
        if (seq !== null) lastSeq = seq;
        if (m.event === LOG_EVENT || event.type === LOG_EVENT) {
          logs.push({ kind: 'log', seq, event, raw, ...(dirty ? {} : { text: m.data }) });
          continue;
        }
        if (logs.length) {
          yield { kind: 'logs', items: logs };
          logs = [];
        }
        yield { kind: 'event', seq, event, raw, ...(dirty ? {} : { text: m.data }) };
        if (event.type === 'run.gate_pending' && event.data.gate)
          yield { kind: 'gate_pending', gate: event.data.gate, event };
        if (TERMINAL_EVENTS.has(event.type)) {
          yield { kind: 'ended', status: event.type.slice(4), event };
          return;
        }
      }
      if (logs.length) yield { kind: 'logs', items: logs };
    }
    // The service said the stream is over (204: its terminal event was already had): the run says how it ended.
    const run = await api.runs.retrieve(runId);
    if (TERMINAL_STATUSES.has(run.status)) yield endedOf(run, terminalEvent(api, run, `evt_${runId}_end`));
  } catch (err) {
    if (!(err instanceof NotAnEventStreamError)) throw err;
    yield { kind: 'polling', reason: err.message };
    yield* poll(api, runId, opts);
  }
}

/** A message's JSON, sanitised as it enters (the one boundary for service text; `dirty`: it had to change, so
 * its text is not passed on), or null when it is not JSON. */
function jsonOf(text: string): { raw: unknown; dirty: boolean } | null {
  const seen: { dirty?: boolean } = {};
  try {
    return { raw: parseServiceJson(text, seen), dirty: Boolean(seen.dirty) };
  } catch {
    return null;
  }
}

/** Without an event stream: the run's state every few seconds, changes told as events (marked synthetic). */
async function* poll(
  api: Api,
  runId: string,
  opts: { pollIntervalMs: number; signal?: AbortSignal },
): AsyncGenerator<WatchEvent> {
  let prev: Run | null = null;
  let n = 0;
  const make = (run: Run, type: string, data: Record<string, unknown>): Event => ({
    id: `poll_${++n}`,
    type,
    created_at: run.updated_at ?? new Date(api.http.clock.now()).toISOString(),
    run_id: run.id,
    data,
  });
  const told = (event: Event): WatchEvent => ({
    kind: 'event',
    seq: null,
    synthetic: true,
    event,
    raw: { ...event, synthetic: true },
  });
  for (;;) {
    if (opts.signal?.aborted) return;
    const run = await api.runs.retrieve(runId);
    if (!prev || run.stage !== prev.stage) yield told(make(run, 'run.stage_changed', { stage: run.stage }));
    if (run.gate_pending && run.gate_pending !== prev?.gate_pending) {
      const event = make(run, 'run.gate_pending', { gate: run.gate_pending, stage: run.stage });
      yield told(event);
      yield { kind: 'gate_pending', gate: run.gate_pending, event };
    }
    if (TERMINAL_STATUSES.has(run.status)) {
      const event = terminalEvent(api, run, `poll_${++n}`);
      yield told(event);
      yield endedOf(run, event);
      return;
    }
    prev = run;
    await sleep(api.http.clock, opts.pollIntervalMs, opts.signal);
  }
}

/** The terminal event of an ended run, made from its state. */
function terminalEvent(api: Api, run: Run, id: string): Event {
  const data: Record<string, unknown> = run.status === 'accepted' ? { app_id: run.app_id } : { stage: run.stage };
  const created_at = run.updated_at ?? new Date(api.http.clock.now()).toISOString();
  return { id, type: TERMINAL_BY_STATUS[run.status]!, created_at, run_id: run.id, data };
}

const endedOf = (run: Run, event: Event): WatchEvent => ({ kind: 'ended', status: run.status, event });
