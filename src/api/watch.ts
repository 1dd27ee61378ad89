// The watch engine: a run's events as typed values (connected, reconnecting, polling, event, log,
// gate_pending, ended), whatever the network does. Renderers only draw what this yields.
import { createParser } from 'eventsource-parser';
import { LOG_EVENT, TERMINAL_EVENTS, TERMINAL_STATUSES } from '../contract/events.js';
import { Event, type Run } from '../contract/schemas.js';
import { EXIT, OrcError } from '../errors.js';
import { ApiConnectionError, ApiError } from './errors.js';
import type { Api } from './index.js';

export type WatchEvent =
  | { kind: 'connected'; resumedAfter: number; reconnected: boolean }
  | { kind: 'reconnecting'; attempt: number; delayMs: number; reason: string }
  | { kind: 'polling'; reason: string }
  /** A run.* event, as the service sent it (or, when polling, made from the run's state: `synthetic`). */
  | { kind: 'event'; seq: number | null; event: Event; synthetic?: boolean }
  | { kind: 'log'; seq: number | null; event: Event }
  | { kind: 'gate_pending'; gate: string; event: Event }
  | { kind: 'ended'; status: string; event: Event };

export interface WatchOptions {
  /** Start after this event id (resume); 0 replays the whole history. */
  afterSeq?: number;
  /** Nothing at all (not even a keep-alive) for this long counts as a dropped stream. */
  idleTimeoutMs?: number;
  /** Consecutive failed attempts before the stream counts as lost for good. */
  maxReconnects?: number;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** The stream could not be had again (exit 1). */
export class StreamLostError extends OrcError {
  override readonly exitCode = EXIT.failure;
}

const TERMINAL_BY_STATUS: Record<string, string> = { accepted: 'run.accepted', rejected: 'run.rejected', failed: 'run.failed', canceled: 'run.canceled' };

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export async function* watchRun(api: Api, runId: string, options: WatchOptions = {}): AsyncGenerator<WatchEvent> {
  const opts = { idleTimeoutMs: 45_000, maxReconnects: 8, pollIntervalMs: 2_000, sleep: defaultSleep, random: Math.random, ...options };
  let lastSeq = opts.afterSeq ?? 0;
  let retryMs = 2_000;
  let failures = 0;
  let connections = 0;

  for (;;) {
    if (opts.signal?.aborted) return;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let reason = 'the stream ended';
    try {
      let stream;
      try {
        stream = await api.events.open(runId, { lastEventId: lastSeq, signal: controller.signal });
      } catch (err) {
        if (opts.signal?.aborted) return;
        if (err instanceof ApiError && [404, 405, 406, 415, 501].includes(err.status) && err.code.startsWith('http_')) {
          // Not the service's own error: something in between does not pass event streams.
          yield { kind: 'polling', reason: `the event stream is not available here (${err.status})` };
          yield* poll(api, runId, opts);
          return;
        }
        if (err instanceof ApiError && err.status < 500 && ![408, 429].includes(err.status)) throw err;
        if (!(err instanceof ApiError) && !(err instanceof ApiConnectionError)) throw err;
        reason = err.message;
        stream = null;
      }
      if (stream) {
        if (!(stream.contentType ?? '').startsWith('text/event-stream')) {
          discard(stream.body);
          yield { kind: 'polling', reason: `the service answered ${stream.contentType ?? 'without a content type'} instead of an event stream` };
          yield* poll(api, runId, opts);
          return;
        }
        yield { kind: 'connected', resumedAfter: lastSeq, reconnected: connections++ > 0 };
        const queue: WatchEvent[] = [];
        let gotData = false;
        const parser = createParser({
          onRetry: (ms) => {
            retryMs = ms;
          },
          onEvent: (m) => {
            const seq = m.id !== undefined && /^\d+$/.test(m.id) ? Number(m.id) : null;
            if (seq !== null && seq <= lastSeq) return; // already seen: never twice
            let parsed;
            try {
              parsed = Event.safeParse(JSON.parse(m.data));
            } catch {
              return; // not JSON: nothing a renderer could show
            }
            if (!parsed.success) return;
            if (seq !== null) lastSeq = seq;
            const event = parsed.data;
            if ((m.event ?? event.type) === LOG_EVENT) return void queue.push({ kind: 'log', seq, event });
            queue.push({ kind: 'event', seq, event });
            if (event.type === 'run.gate_pending' && event.data.gate) queue.push({ kind: 'gate_pending', gate: event.data.gate, event });
            if (TERMINAL_EVENTS.has(event.type)) queue.push({ kind: 'ended', status: event.type.slice(4), event });
          },
        });
        const decoder = new TextDecoder();
        // The idle clock runs only while waiting on the network, not while a consumer (a prompt) holds us.
        let idle: NodeJS.Timeout | undefined;
        let idleFired = false;
        const arm = () => {
          clearTimeout(idle);
          idle = setTimeout(() => {
            idleFired = true;
            controller.abort();
          }, opts.idleTimeoutMs);
        };
        try {
          arm();
          for await (const chunk of stream.body) {
            clearTimeout(idle);
            if (!gotData) {
              gotData = true;
              failures = 0;
            }
            parser.feed(decoder.decode(chunk, { stream: true }));
            while (queue.length) {
              const ev = queue.shift()!;
              yield ev;
              if (ev.kind === 'ended') return;
            }
            arm();
          }
          reason = 'the stream closed before the run ended';
        } catch (err) {
          if (opts.signal?.aborted) return;
          reason = idleFired ? `nothing arrived for ${Math.round(opts.idleTimeoutMs / 1000)} s` : `the stream broke (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
        } finally {
          clearTimeout(idle);
          discard(stream.body);
        }
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
    failures++;
    if (failures > opts.maxReconnects) throw new StreamLostError(`lost the event stream of ${runId}: ${reason} (${failures} attempts in a row)`, `The run goes on; watch again with \`orc watch ${runId}\`.`);
    // The server's retry: is the floor; repeated failures back off exponentially from there, with jitter.
    const delay = Math.min(Math.max(retryMs, 500 * 2 ** (failures - 1)), 30_000) * (1 - 0.25 * opts.random());
    yield { kind: 'reconnecting', attempt: failures, delayMs: Math.round(delay), reason };
    await opts.sleep(delay, opts.signal);
  }
}

/** Drops a body we will not read; undici reports that as an aborted request, which is what we meant. */
function discard(body: { destroy(err?: Error): void; on?: (event: string, fn: () => void) => unknown }): void {
  body.on?.('error', () => {});
  body.destroy();
}

/** Without an event stream: the run's state every few seconds, changes told as events (marked synthetic). */
async function* poll(api: Api, runId: string, opts: Required<Pick<WatchOptions, 'pollIntervalMs' | 'sleep'>> & WatchOptions): AsyncGenerator<WatchEvent> {
  let prev: Run | null = null;
  let n = 0;
  const make = (run: Run, type: string, data: Record<string, unknown>): Event => ({ id: `poll_${++n}`, type, created_at: run.updated_at ?? new Date().toISOString(), run_id: run.id, data });
  for (;;) {
    if (opts.signal?.aborted) return;
    const run = await api.runs.retrieve(runId);
    if (!prev || run.stage !== prev.stage) yield { kind: 'event', seq: null, synthetic: true, event: make(run, 'run.stage_changed', { stage: run.stage }) };
    if (run.gate_pending && run.gate_pending !== prev?.gate_pending) {
      const event = make(run, 'run.gate_pending', { gate: run.gate_pending, stage: run.stage });
      yield { kind: 'event', seq: null, synthetic: true, event };
      yield { kind: 'gate_pending', gate: run.gate_pending, event };
    }
    if (TERMINAL_STATUSES.has(run.status)) {
      const event = make(run, TERMINAL_BY_STATUS[run.status]!, run.status === 'accepted' ? { app_id: run.app_id } : { stage: run.stage });
      yield { kind: 'event', seq: null, synthetic: true, event };
      yield { kind: 'ended', status: run.status, event };
      return;
    }
    prev = run;
    await opts.sleep(opts.pollIntervalMs, opts.signal);
  }
}
