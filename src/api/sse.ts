// Server-sent events, read by orc itself: a parser that frames messages on bytes (so a message's size is
// known exactly and capped), and a reader that keeps a stream alive: it resumes after the last id with
// Last-Event-ID, honours `retry:`, backs off with jitter (the one curve, src/lib/backoff.ts), and counts the
// stream silent when no complete message or comment came for a while, however many bytes trickled in.
import { sleep, type Clock } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';
import { backoff, type Curve } from '../lib/backoff.js';
import { ApiConnectionError, ApiError, NotAnEventStreamError, StreamLostError } from './errors.js';
import { retriesStatus } from './retry.js';

export { NotAnEventStreamError, StreamLostError };
import type { Answer, HttpClient } from './http.js';

/** CONTRACT.md, limits on input: at most 1 MiB of one message. */
export const MAX_SSE_MESSAGE_BYTES = 1024 * 1024;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface SseMessage {
  /** The `id:` of this message, or null when it had none. */
  id: string | null;
  /** `event:`, or `message` when absent. */
  event: string;
  data: string;
}

export class SseTooLargeError extends Error {
  constructor(limit: number) {
    super(`a message larger than ${Math.round(limit / 1024)} KiB`);
  }
}

/** The SSE line protocol (WHATWG HTML, server-sent events), fed bytes as they come. */
export class SseParser {
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private messageBytes = 0;
  private afterCR = false;
  private data: string[] = [];
  private event = '';
  private id: string | null = null;
  /** The stream's first bytes while they may still be a byte-order mark; null once it is known. */
  private head: Buffer | null = Buffer.alloc(0);

  constructor(
    private readonly handlers: { message(m: SseMessage): void; comment?(text: string): void; retry?(ms: number): void },
    private readonly maxBytes = MAX_SSE_MESSAGE_BYTES,
  ) {}

  feed(chunk: Buffer): void {
    if (this.head) chunk = this.withoutBom(chunk);
    // Line ends found by Buffer#indexOf (memchr), not byte by byte in JavaScript: a stream of small messages
    // is mostly line ends. A line whole in this chunk is decoded straight from it, without a copy.
    let start = 0;
    if (this.afterCR && chunk.length > 0) {
      // the LF of a CRLF whose CR ended the previous chunk
      if (chunk[0] === 0x0a && this.partialBytes === 0) start = 1;
      this.afterCR = false;
    }
    let cr = chunk.indexOf(0x0d, start);
    let lf = chunk.indexOf(0x0a, start);
    while (cr >= 0 || lf >= 0) {
      const end = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
      this.line(chunk, start, end);
      start = end + 1;
      if (end === cr) {
        // CRLF is one line end: skip its LF (here, or at the start of the next chunk)
        if (start < chunk.length) {
          if (chunk[start] === 0x0a) start++;
        } else this.afterCR = true;
        cr = chunk.indexOf(0x0d, start);
      }
      if (lf >= 0 && lf < start) lf = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** WHATWG: one leading U+FEFF is not part of the stream (else the first field name is `\uFEFFdata`). */
  private withoutBom(chunk: Buffer): Buffer {
    const head = Buffer.concat([this.head!, chunk]);
    if (head.length < BOM.length && BOM.subarray(0, head.length).equals(head)) {
      this.head = head;
      return Buffer.alloc(0);
    }
    this.head = null;
    return head.subarray(0, BOM.length).equals(BOM) ? head.subarray(BOM.length) : head;
  }

  private take(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.partial.push(Buffer.from(bytes));
    this.partialBytes += bytes.length;
    if (this.messageBytes + this.partialBytes > this.maxBytes) throw new SseTooLargeError(this.maxBytes);
  }

  /** The line that ends at `end` of `chunk` (after what earlier chunks left in `partial`). */
  private line(chunk: Buffer, start: number, end: number): void {
    let line: string;
    const bytes = this.partialBytes + (end - start) + 1;
    if (this.partialBytes === 0) line = start === end ? '' : chunk.toString('utf8', start, end);
    else {
      this.take(chunk.subarray(start, end));
      line = Buffer.concat(this.partial, this.partialBytes).toString('utf8');
      this.partial = [];
      this.partialBytes = 0;
    }
    if (this.messageBytes + bytes > this.maxBytes + 1) throw new SseTooLargeError(this.maxBytes);
    if (line === '') return this.dispatch();
    // A comment is not part of the message (keep-alives between messages cost nothing), but neither does it
    // start a new one: every other line since the last blank line counts toward the cap.
    if (line.startsWith(':')) return this.handlers.comment?.(line.slice(1).trim());
    this.messageBytes += bytes;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\u0000')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.handlers.retry?.(Number(value));
  }

  private dispatch(): void {
    this.messageBytes = 0;
    if (this.data.length === 0) {
      this.event = '';
      return;
    }
    const message = { id: this.id, event: this.event || 'message', data: this.data.join('\n') };
    this.data = [];
    this.event = '';
    this.id = null;
    this.handlers.message(message);
  }
}

export type StreamItem =
  | { kind: 'open'; resumedAfter: string | null; reconnected: boolean }
  /** The messages one read from the network completed, in order (a batch: one step for the consumer, not
   * one each, which for a stream of small messages is most of the cost of reading it). */
  | { kind: 'messages'; messages: SseMessage[] }
  | { kind: 'reconnecting'; attempt: number; delayMs: number; reason: string };

export interface StreamOptions {
  /** Resume after this id (sent as Last-Event-ID); null replays from the start. */
  lastEventId?: string | null;
  /** No complete message or comment for this long counts as a dropped stream. */
  idleMs: number;
  /** Failed attempts in a row before the stream counts as lost for good. */
  maxReconnects: number;
  signal?: AbortSignal;
  random?: () => number;
  /** What the stream is of, for the messages when it is lost ("the event stream of run_…"). */
  what: string;
  /** How to pick it up again, said when it is lost for good. */
  resumeHint?: string;
}

/** How a stream reconnects: from the service's `retry:` (2 s until it says) up, doubling with failures in a
 * row, at most 30 s, less up to a quarter at random. */
const RECONNECT_CURVE: Curve = { baseMs: 500, capMs: 30_000, jitter: 0.25 };

/** What a stream keeps across its connections: where to resume, the service's `retry:`, failures in a row. */
class StreamState {
  retryMs = 2_000;
  failures = 0;
  opened = 0;
  constructor(public lastId: string | null) {}
}

/** An event stream that outlives dropped connections. Stops when the caller stops iterating or aborts, or
 * when the service answers 204 (the stream is over). */
export async function* readEventStream(
  http: HttpClient,
  target: string,
  options: StreamOptions,
): AsyncGenerator<StreamItem> {
  // The stream ends quietly when the caller aborts, or when the client is closed (its sandbox stopped).
  const signal = options.signal ? AbortSignal.any([options.signal, http.lifetime]) : http.lifetime;
  const opts = { ...options, signal };
  const state = new StreamState(opts.lastEventId ?? null);
  for (;;) {
    if (opts.signal?.aborted) return;
    const connection = new Connection(opts.signal);
    let reason: string | null;
    try {
      const opened = await connect(http, target, state.lastId, connection.signal, opts.signal);
      if (opened === null) return;
      // 204: the service has nothing more to send (WHATWG: an EventSource stops): the stream is over.
      if (typeof opened !== 'string' && opened.status === 204) return void opened.body.destroy();
      if (typeof opened === 'string') reason = opened;
      else {
        assertEventStream(opened);
        yield { kind: 'open', resumedAfter: state.lastId, reconnected: state.opened++ > 0 };
        reason = yield* readConnection(opened, state, connection, opts, http.clock);
        if (reason === null) return;
      }
    } finally {
      connection.end();
    }
    const { item, delay } = nextConnection(state, reason, opts);
    yield item;
    await sleep(http.clock, delay, opts.signal);
  }
}

/** One connection's signal: aborted by the caller's, or by the stream's own silence rule. */
class Connection {
  private readonly controller = new AbortController();
  private readonly onAbort = () => this.controller.abort();

  constructor(private readonly caller: AbortSignal | undefined) {
    caller?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  abort(): void {
    this.controller.abort();
  }

  end(): void {
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}

/**
 * The stream asked for, resuming after `lastId`: its answer; or why it failed, when that is worth another
 * connection (the one retry policy, for a GET); or null when the caller stopped it. An endpoint that is not
 * a stream, or a refusal, is thrown.
 */
async function connect(
  http: HttpClient,
  target: string,
  lastId: string | null,
  signal: AbortSignal,
  caller: AbortSignal | undefined,
): Promise<Answer | string | null> {
  try {
    return await http.send({
      method: 'GET',
      target,
      headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
      signal,
      retries: 0,
      deadline: false,
      bodyTimeoutMs: 0,
      longLived: true,
    });
  } catch (err) {
    if (caller?.aborted) return null;
    if (err instanceof ApiError && [404, 405, 406, 415, 501].includes(err.status) && err.code.startsWith('http_'))
      throw new NotAnEventStreamError(`the event stream is not available here (${err.status})`);
    if (err instanceof ApiError && !retriesStatus(err.status, err.code, true)) throw err;
    if (!(err instanceof ApiError) && !(err instanceof ApiConnectionError)) throw err;
    return err.message;
  }
}

function assertEventStream(answer: Answer): void {
  const type = answer.header('content-type') ?? '';
  if (type.startsWith('text/event-stream')) return;
  answer.body.destroy();
  throw new NotAnEventStreamError(
    `the service answered ${type || 'without a content type'} instead of an event stream`,
  );
}

/**
 * The messages of one connection, a batch per read that completed any, until it ends: then why it ended, or
 * null when the caller stopped it. The silence clock runs only while orc waits on the network, never while
 * its consumer holds it (a prompt), and only complete messages or comments reset it.
 */
async function* readConnection(
  answer: Answer,
  state: StreamState,
  connection: Connection,
  opts: StreamOptions,
  clock: Clock,
): AsyncGenerator<StreamItem, string | null> {
  const inbox = new Inbox(state);
  const idle = new IdleTimer(clock, opts.idleMs, () => connection.abort());
  try {
    idle.arm();
    for await (const chunk of answer.body) {
      if (!inbox.feed(chunk)) continue; // bytes, but nothing whole: the silence clock keeps running
      idle.cancel();
      state.failures = 0;
      const messages = inbox.take();
      if (messages.length) yield { kind: 'messages', messages };
      idle.arm();
    }
    return 'the stream closed';
  } catch (err) {
    if (opts.signal?.aborted) return null;
    if (err instanceof SseTooLargeError) return `the service sent ${err.message}; dropped the connection`;
    return idle.fired
      ? `nothing arrived for ${formatDuration(opts.idleMs)}`
      : `the stream broke (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  } finally {
    idle.cancel();
    answer.body.destroy();
  }
}

/** The parser of one connection and the messages it completed, not yet handed on. */
class Inbox {
  private ready: SseMessage[] = [];
  private progressed = false;
  private readonly parser: SseParser;

  constructor(private readonly state: StreamState) {
    this.parser = new SseParser({
      message: (m) => {
        this.ready.push(m);
        this.progressed = true;
      },
      comment: () => {
        this.progressed = true;
      },
      retry: (ms) => {
        state.retryMs = ms;
      },
    });
  }

  /** Whether these bytes completed a message or a comment. */
  feed(chunk: Buffer): boolean {
    this.progressed = false;
    this.parser.feed(chunk);
    return this.progressed;
  }

  /** The messages completed so far, the last id among them kept to resume after. */
  take(): SseMessage[] {
    const messages = this.ready;
    this.ready = [];
    for (const m of messages) if (m.id !== null) this.state.lastId = m.id;
    return messages;
  }
}

/** The stream's silence rule: `ms` without a whole message or comment counts as a dropped connection. */
class IdleTimer {
  fired = false;
  cancel = () => {};

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
    private readonly onFire: () => void,
  ) {}

  arm(): void {
    this.cancel();
    this.cancel = this.clock.timer(this.ms, () => {
      this.fired = true;
      this.onFire();
    });
  }
}

/** One more failure in a row: the stream lost for good past the limit, else the wait before the next connection. */
function nextConnection(state: StreamState, reason: string, opts: StreamOptions): { item: StreamItem; delay: number } {
  state.failures++;
  if (state.failures > opts.maxReconnects)
    throw new StreamLostError(`lost ${opts.what}: ${reason} (${state.failures} attempts in a row)`, opts.resumeHint);
  // The service's retry: is the floor; failures in a row back off exponentially from there, with jitter.
  const delay = backoff(state.failures - 1, { ...RECONNECT_CURVE, floorMs: state.retryMs }, opts.random ?? Math.random);
  return { item: { kind: 'reconnecting', attempt: state.failures, delayMs: Math.round(delay), reason }, delay };
}
