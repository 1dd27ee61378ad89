// Server-sent events, read by orc itself: a parser that frames messages on bytes (so a message's size is
// known exactly and capped), and a reader that keeps a stream alive: it resumes after the last id with
// Last-Event-ID, honours `retry:`, backs off with jitter, and counts the stream silent when no complete
// message or comment came for a while, however many bytes trickled in.
import { sleep, type Clock } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';
import { ApiConnectionError, ApiError, NotAnEventStreamError, StreamLostError } from './errors.js';

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

/** An event stream that outlives dropped connections. Stops when the caller stops iterating or aborts, or
 * when the service answers 204 (the stream is over). */
export async function* readEventStream(
  http: HttpClient,
  target: string,
  opts: StreamOptions,
): AsyncGenerator<StreamItem> {
  const clock: Clock = http.clock;
  const random = opts.random ?? Math.random;
  let lastId = opts.lastEventId ?? null;
  let retryMs = 2_000;
  let failures = 0;
  let opened = 0;

  for (;;) {
    if (opts.signal?.aborted) return;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let reason = 'the stream ended';
    let answer: Answer | null = null;
    try {
      try {
        answer = await http.send({
          method: 'GET',
          target,
          headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: controller.signal,
          retries: 0,
          deadline: false,
          bodyTimeoutMs: 0,
        });
      } catch (err) {
        if (opts.signal?.aborted) return;
        if (err instanceof ApiError && [404, 405, 406, 415, 501].includes(err.status) && err.code.startsWith('http_'))
          throw new NotAnEventStreamError(`the event stream is not available here (${err.status})`);
        if (err instanceof ApiError && err.status < 500 && ![408, 429].includes(err.status)) throw err;
        if (!(err instanceof ApiError) && !(err instanceof ApiConnectionError)) throw err;
        reason = err.message;
      }
      // 204: the service has nothing more to send (WHATWG: an EventSource stops): the stream is over.
      if (answer?.status === 204) return void answer.body.destroy();
      if (answer) {
        const type = answer.header('content-type') ?? '';
        if (!type.startsWith('text/event-stream')) {
          answer.body.destroy();
          throw new NotAnEventStreamError(
            `the service answered ${type || 'without a content type'} instead of an event stream`,
          );
        }
        yield { kind: 'open', resumedAfter: lastId, reconnected: opened++ > 0 };
        let ready: SseMessage[] = [];
        let progressed = false;
        const parser = new SseParser({
          message: (m) => {
            ready.push(m);
            progressed = true;
          },
          comment: () => {
            progressed = true;
          },
          retry: (ms) => {
            retryMs = ms;
          },
        });
        // The silence clock runs only while orc waits on the network, never while its consumer holds it
        // (a prompt), and only complete messages or comments reset it.
        let idleFired = false;
        let cancelIdle = () => {};
        const armIdle = () => {
          cancelIdle();
          cancelIdle = clock.timer(opts.idleMs, () => {
            idleFired = true;
            controller.abort();
          });
        };
        try {
          armIdle();
          for await (const chunk of answer.body) {
            progressed = false;
            parser.feed(chunk);
            if (!progressed) continue; // bytes, but nothing whole: the silence clock keeps running
            cancelIdle();
            failures = 0;
            if (ready.length) {
              const messages = ready;
              ready = [];
              for (const m of messages) if (m.id !== null) lastId = m.id;
              yield { kind: 'messages', messages };
            }
            armIdle();
          }
          reason = 'the stream closed';
        } catch (err) {
          if (opts.signal?.aborted) return;
          if (err instanceof SseTooLargeError) reason = `the service sent ${err.message}; dropped the connection`;
          else
            reason = idleFired
              ? `nothing arrived for ${formatDuration(opts.idleMs)}`
              : `the stream broke (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
        } finally {
          cancelIdle();
          answer.body.destroy();
        }
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
    failures++;
    if (failures > opts.maxReconnects)
      throw new StreamLostError(`lost ${opts.what}: ${reason} (${failures} attempts in a row)`, opts.resumeHint);
    // The service's retry: is the floor; failures in a row back off exponentially from there, with jitter.
    const delay = Math.min(Math.max(retryMs, 500 * 2 ** (failures - 1)), 30_000) * (1 - 0.25 * random());
    yield { kind: 'reconnecting', attempt: failures, delayMs: Math.round(delay), reason };
    await sleep(clock, delay, opts.signal);
  }
}
