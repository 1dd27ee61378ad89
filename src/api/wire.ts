// A GET read straight off the socket, for downloads. Node's http client hands a body on as a stream of fresh
// buffers, one per read, through the parser, IncomingMessage and a Readable: on a 512 MiB file over loopback
// that alone kept it far behind curl (docs/figures.md). Here the socket reads into one reused 1 MiB buffer
// (net's `onread`) and the body's bytes go to the reader right there, as views of that buffer, synchronously:
// no stream, no copy, no garbage (docs/figures.md). It speaks what a download needs and no more: HTTP/1.1
// GET, one request per connection, a body framed by Content-Length, chunked, or the connection's close (read
// by lib/http1.ts, as the sandbox's webhook poster reads its answers).
// Everything else stays the exchange's (http.ts): redirects, retries, error answers, the silence timer. To it
// this is one more transport answer, whose body can also be iterated (copies, with back-pressure) for the
// short bodies of errors and redirects. node:tls (and with it node:crypto, a cost at load: docs/figures.md)
// is taken only for an https URL: a pull's hash takes node:crypto alone.
import type { IncomingHttpHeaders } from 'node:http';
import { AnswerReader } from '../lib/http1.js';
import { connect as netConnect, isIP, type Socket } from 'node:net';

export interface WireRequest {
  url: URL;
  headers: Record<string, string>;
  signal: AbortSignal;
  connectTimeoutMs: number;
  /** Certificates to trust (https), instead of Node's default list. */
  ca?: string[] | undefined;
}

export interface WireAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: WireBody;
}

const BUFFER = 1 << 20;
/** Iterated (not drained), a body stops reading once this much waits unread. */
const QUEUE_LIMIT = 1 << 20;

type Listener = (arg?: unknown) => void;

/** The body of a wire answer: drained into a writer, or iterated. */
export class WireBody implements AsyncIterable<Buffer> {
  /** Every byte of the body came (its framing said where it ends). */
  complete = false;
  private sink: ((bytes: Uint8Array) => void) | null = null;
  private queue: Buffer[] = [];
  private queued = 0;
  private failure: Error | null = null;
  private ended = false;
  private wake: (() => void) | null = null;
  private readonly listeners: Record<'end' | 'error', Listener[]> = { end: [], error: [] };

  constructor(private readonly socket: Socket) {}

  on(event: 'end' | 'error', fn: Listener): this {
    this.listeners[event].push(fn);
    return this;
  }

  once(event: 'end' | 'error', fn: Listener): this {
    return this.on(event, fn);
  }

  /**
   * Hands every byte of the body to `write`, synchronously, as views of the socket's buffer that are valid
   * only during the call. Settles when the body ends; an error thrown by `write` stops the reading and
   * rejects with that same error.
   */
  drainInto(write: (bytes: Uint8Array) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      for (const chunk of this.queue.splice(0)) {
        try {
          write(chunk);
        } catch (err) {
          this.destroy(err as Error);
          return reject(err);
        }
      }
      this.queued = 0;
      if (this.ended) return this.failure ? reject(this.failure) : resolve();
      this.sink = write;
      this.wake = () => (this.failure ? reject(this.failure) : resolve());
      this.socket.resume();
    });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    for (;;) {
      const chunk = this.queue.shift();
      if (chunk) {
        this.queued -= chunk.length;
        if (this.queued < QUEUE_LIMIT && !this.ended) this.socket.resume();
        yield chunk;
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  destroy(err?: Error): void {
    if (!this.ended)
      this.fail(err ?? Object.assign(new Error('the download was stopped'), { code: 'ERR_STREAM_DESTROYED' }));
    this.socket.destroy();
  }

  /** Bytes of the body, from the socket's buffer. */
  push(bytes: Uint8Array): void {
    if (this.sink) return this.sink(bytes);
    this.queue.push(Buffer.from(bytes));
    this.queued += bytes.length;
    if (this.queued >= QUEUE_LIMIT) this.socket.pause();
    this.notify();
  }

  finish(): void {
    if (this.ended) return;
    this.complete = this.ended = true;
    this.notify();
    for (const fn of this.listeners.end) fn();
  }

  fail(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = err;
    this.notify();
    for (const fn of this.listeners.error) fn(err);
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/** One GET on a connection of its own; the answer once its head has come. */
export function wireGet(req: WireRequest): Promise<WireAnswer> {
  let head: string;
  try {
    head = requestHead(req.url, req.headers);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  return new Promise<WireAnswer>((resolve, reject) => new WireGet(req, resolve, reject).send(head));
}

/** The request's head, or an error when a header would split it. */
function requestHead(url: URL, headers: Record<string, string>): string {
  let head = `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n]/.test(name + value)) throw new Error(`the header ${name} holds a line break`);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}connection: close\r\n\r\n`;
}

/**
 * One wire GET in flight: its socket (reading into one reused buffer), the answer's reader, the connect
 * timeout and the caller's abort; the answer resolved at its head, every later failure handed to its body.
 */
class WireGet {
  private readonly socket: Socket;
  private readonly answer: AnswerReader;
  private readonly timer: NodeJS.Timeout;
  private body: WireBody | null = null;
  private failed = false;
  private readonly abort = () =>
    this.socket.destroy(
      Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }),
    );

  constructor(
    private readonly req: WireRequest,
    private readonly resolve: (answer: WireAnswer) => void,
    private readonly reject: (err: Error) => void,
  ) {
    const https = req.url.protocol === 'https:';
    this.socket = connect(req, (bytes) => this.read(bytes));
    this.answer = new AnswerReader({
      head: ({ status, headers }) => {
        this.body = new WireBody(this.socket);
        this.resolve({ statusCode: status, headers, body: this.body });
      },
      body: (bytes) => this.body!.push(bytes),
      end: () => {
        this.body!.finish();
        this.socket.destroy();
      },
    });
    if (req.signal.aborted) this.abort();
    req.signal.addEventListener('abort', this.abort, { once: true });
    this.timer = setTimeout(
      () => this.socket.destroy(Object.assign(new Error('timed out connecting'), { code: 'UND_ERR_CONNECT_TIMEOUT' })),
      req.connectTimeoutMs,
    );
    this.timer.unref();
    this.socket.once(https ? 'secureConnect' : 'connect', () => clearTimeout(this.timer));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.closed());
  }

  send(head: string): void {
    this.socket.write(head);
  }

  private read(bytes: Uint8Array): void {
    if (this.failed || this.answer.done) return;
    try {
      // (bytes after the answer's end are not read: the connection is closed at its end)
      this.answer.feed(bytes);
    } catch (err) {
      // The reader's own error (a full disk, more bytes than declared: handed on as it is) or an answer
      // that breaks HTTP.
      this.fail(err as Error);
      this.socket.destroy();
    }
  }

  private fail(err: Error): void {
    this.failed = true;
    if (this.body) this.body.fail(err);
    else this.reject(err);
  }

  private closed(): void {
    clearTimeout(this.timer);
    this.req.signal.removeEventListener('abort', this.abort);
    if (this.failed || this.answer.closed()) return;
    const what = this.body ? 'the answer broke off' : 'the connection closed before an answer';
    this.fail(Object.assign(new Error(what), { code: 'ECONNRESET' }));
  }
}

/** The socket, reading into one buffer of its own that `read` is shown a view of (net's `onread`). */
function connect(req: WireRequest, read: (bytes: Uint8Array) => void): Socket {
  const { url } = req;
  const https = url.protocol === 'https:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = Number(url.port) || (https ? 443 : 80);
  const buffer = Buffer.allocUnsafe(BUFFER);
  const onread = { buffer, callback: (n: number) => (read(buffer.subarray(0, n)), true) };
  if (!https) return netConnect({ host, port, onread });
  return (process.getBuiltinModule('node:tls') as typeof import('node:tls')).connect({
    host,
    port,
    ...(isIP(host) ? {} : { servername: host }),
    ...(req.ca ? { ca: req.ca } : {}),
    ALPNProtocols: ['http/1.1'],
    onread,
  } as import('node:tls').ConnectionOptions);
}
