// The one writer of every event stream the sandbox serves (runs' events, the firehose, the journal): the
// head, keep-alives, a bound on what a reader may leave unread, and a cut that lets what was written go first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { every, type Clock } from '../lib/clock.js';

/** How far behind (bytes written but not yet taken by the client, past what the OS buffers) a reader may
 * fall before it is dropped: a reader that never reads costs at most this much memory. */
export const STREAM_BACKLOG_BYTES = 1024 * 1024;

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');
// No Connection header: Node's own choice honours a client's `Connection: close`. (X-Accel-Buffering: no, or
// a proxy such as nginx holds the events back.)
const HEAD = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

/** One open event stream. Every write goes through the bound. */
export class SseStream {
  constructor(
    private readonly res: ServerResponse,
    private readonly maxBacklog: number,
  ) {}

  /** Being cut: its last chunk is on the way, and nothing more (a keep-alive, an event) may follow it. */
  private cutting = false;

  get open(): boolean {
    return !this.cutting && !this.res.destroyed && !this.res.writableEnded;
  }

  /** Bytes written and not yet taken by the client (held by Node, not by the OS). */
  get buffered(): number {
    return this.res.writableLength;
  }

  /** Writes `chunk`, unless the reader is already further behind than the bound: then it is dropped (the
   * connection destroyed, what it had not taken freed) and this answers false. The check comes before the
   * write, so one large write (a replay) still goes out whole to a reader that keeps up. */
  write(chunk: string | Buffer): boolean {
    if (!this.open) return false;
    if (this.res.writableLength > this.maxBacklog) {
      this.res.destroy();
      return false;
    }
    if (chunk.length) this.res.write(chunk);
    return true;
  }

  /** The last write, then the stream's proper end. */
  end(chunk: string | Buffer = ''): void {
    if (this.write(chunk)) this.res.end();
  }

  /** Drops the connection without the stream's end (an injected fault), once `chunk` has reached the socket:
   * destroyed in the same tick, Node would discard what is still corked, `chunk` included. */
  cut(chunk: string | Buffer): void {
    if (!this.open) return;
    this.cutting = true;
    if (!chunk.length || this.res.writableLength > this.maxBacklog) return void this.res.destroy();
    this.res.write(chunk, () => this.res.destroy());
  }
}

/** Opens event streams and keeps them alive: one keep-alive timer for all of them. */
export class SseWriter {
  private readonly streams = new Set<SseStream>();
  private readonly stopKeepAlive: () => void;

  constructor(
    keepAliveMs: number,
    clock: Clock,
    private readonly maxBacklog = STREAM_BACKLOG_BYTES,
  ) {
    this.stopKeepAlive = every(clock, keepAliveMs, () => this.each((s) => s.write(KEEP_ALIVE)), { background: true });
  }

  /** Answers with an event stream's head and `retry: 2000`. Keep-alive as the request allows: Node answers
   * `Connection: close` (and closes after the end) when the client asked for it. */
  open(req: IncomingMessage, res: ServerResponse): SseStream {
    res.writeHead(200, HEAD);
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const stream = new SseStream(res, this.maxBacklog);
    this.streams.add(stream);
    res.on('close', () => this.streams.delete(stream));
    stream.write('retry: 2000\n\n');
    return stream;
  }

  /** Streams open now, and the bytes they hold that their readers have not taken. */
  stats(): { open: number; buffered: number } {
    let buffered = 0;
    this.each((s) => (buffered += s.buffered));
    return { open: this.streams.size, buffered };
  }

  /** Ends every stream and stops the keep-alives (the sandbox is stopping). */
  close(): void {
    this.stopKeepAlive();
    this.each((s) => s.end());
    this.streams.clear();
  }

  private each(fn: (s: SseStream) => unknown): void {
    for (const s of this.streams) fn(s);
  }
}
