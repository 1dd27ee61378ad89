// A GET read straight off the socket, for downloads. Node's http client hands a body on as a stream of
// fresh buffers, one per read, through the parser, IncomingMessage and a Readable: on a 512 MiB file over
// loopback that alone read at half curl's speed. Here the socket reads into one reused 1 MiB buffer (net's
// `onread`) and the body's bytes go to the reader right there, as views of that buffer, synchronously: no
// stream, no copy, no garbage (docs/figures.md). It speaks what a download needs and no more: HTTP/1.1 GET,
// one request per connection, a body framed by Content-Length, chunked, or the connection's close.
// Everything else stays the exchange's (http.ts): redirects, retries, error answers, the silence timer.
// To it this is one more transport answer, whose body can also be iterated (copies, with back-pressure) for
// the short bodies of errors and redirects.
import type { IncomingHttpHeaders } from 'node:http';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

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
const MAX_HEAD = 64 << 10;
const MAX_LINE = 4096;
/** Iterated (not drained), a body stops reading once this much waits unread. */
const QUEUE_LIMIT = 1 << 20;
const CR = 13;
const LF = 10;

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
    if (!this.ended) this.fail(err ?? Object.assign(new Error('the download was stopped'), { code: 'ERR_STREAM_DESTROYED' }));
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

/** How the body of the answer is framed, and where the reader is in it. */
type State = 'head' | 'fixed' | 'close' | 'size' | 'data' | 'data-end' | 'trailer' | 'done';

/** One GET on a connection of its own; the answer once its head has come. */
export function wireGet(req: WireRequest): Promise<WireAnswer> {
  return new Promise<WireAnswer>((resolve, reject) => {
    const { url } = req;
    const https = url.protocol === 'https:';
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = Number(url.port) || (https ? 443 : 80);
    const buffer = Buffer.allocUnsafe(BUFFER);
    const onread = { buffer, callback: (n: number) => (read(buffer.subarray(0, n)), true) };
    const socket: Socket = https
      ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...(req.ca ? { ca: req.ca } : {}), ALPNProtocols: ['http/1.1'], onread } as import('node:tls').ConnectionOptions)
      : netConnect({ host, port, onread });

    let state: State = 'head';
    let head: Buffer | null = null;
    let remaining = 0;
    let line = '';
    let body: WireBody | null = null;

    const abort = () => socket.destroy(Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }));
    if (req.signal.aborted) abort();
    req.signal.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error('timed out connecting'), { code: 'UND_ERR_CONNECT_TIMEOUT' })), req.connectTimeoutMs);
    timer.unref();
    socket.once(https ? 'secureConnect' : 'connect', () => clearTimeout(timer));

    const fail = (err: Error) => {
      if (body) body.fail(err);
      else reject(err);
    };
    socket.on('error', (err) => fail(err));
    socket.on('close', () => {
      clearTimeout(timer);
      req.signal.removeEventListener('abort', abort);
      if (state === 'close') body?.finish();
      else if (state !== 'done') fail(Object.assign(new Error(body ? 'the answer broke off' : 'the connection closed before an answer'), { code: 'ECONNRESET' }));
    });

    const done = () => {
      state = 'done';
      body!.finish();
      socket.destroy();
    };

    /** A line (up to LF) from `bytes` at `at` into `line`; the index past it, or -1 if it goes on in the next read. */
    const takeLine = (bytes: Uint8Array, at: number): number => {
      const end = bytes.indexOf(LF, at);
      const stop = end === -1 ? bytes.length : end;
      line += Buffer.from(bytes.buffer, bytes.byteOffset + at, stop - at).toString('latin1');
      if (line.length > MAX_LINE) throw broken('a line of the answer is too long');
      return end === -1 ? -1 : end + 1;
    };
    const takenLine = () => {
      const text = line.endsWith('\r') ? line.slice(0, -1) : line;
      line = '';
      return text;
    };

    const read = (bytes: Uint8Array) => {
      try {
        let at = 0;
        if (state === 'head') {
          head = head ? Buffer.concat([head, bytes]) : Buffer.from(bytes);
          const end = head.indexOf('\r\n\r\n');
          if (end === -1) {
            if (head.length > MAX_HEAD) throw broken('the head of the answer is too long');
            return;
          }
          const parsed = parseHead(head.subarray(0, end).toString('latin1'));
          const rest = head.subarray(end + 4);
          head = null;
          if (parsed.status >= 100 && parsed.status < 200) {
            // An interim answer (100 Continue): the real one follows.
            if (rest.length) read(rest);
            return;
          }
          body = new WireBody(socket);
          const length = Number(headerValue(parsed.headers, 'content-length') ?? NaN);
          if (parsed.status === 204 || parsed.status === 304) state = 'done';
          else if (/\bchunked\b/i.test(headerValue(parsed.headers, 'transfer-encoding') ?? '')) state = 'size';
          else if (Number.isSafeInteger(length) && length >= 0) ((state = 'fixed'), (remaining = length));
          else state = 'close';
          resolve({ statusCode: parsed.status, headers: parsed.headers, body });
          if (state === 'done' || (state === 'fixed' && remaining === 0)) return done();
          bytes = rest;
        }
        while (at < bytes.length) {
          switch (state) {
            case 'fixed': {
              const n = Math.min(remaining, bytes.length - at);
              remaining -= n;
              body!.push(bytes.subarray(at, at + n));
              if (remaining === 0) return done();
              at += n;
              break;
            }
            case 'close':
              body!.push(at ? bytes.subarray(at) : bytes);
              return;
            case 'size': {
              at = takeLine(bytes, at);
              if (at === -1) return;
              const size = takenLine().split(';')[0]!.trim();
              if (!/^[0-9a-f]{1,12}$/i.test(size)) throw broken(`a chunk size that is not hexadecimal (${JSON.stringify(size.slice(0, 20))})`);
              remaining = parseInt(size, 16);
              state = remaining === 0 ? 'trailer' : 'data';
              break;
            }
            case 'data': {
              const n = Math.min(remaining, bytes.length - at);
              remaining -= n;
              body!.push(bytes.subarray(at, at + n));
              at += n;
              if (remaining === 0) state = 'data-end';
              break;
            }
            case 'data-end':
              at = takeLine(bytes, at);
              if (at === -1) return;
              if (takenLine() !== '') throw broken('a chunk longer than its size');
              state = 'size';
              break;
            case 'trailer':
              at = takeLine(bytes, at);
              if (at === -1) return;
              if (takenLine() === '') return done();
              break;
            default:
              return;
          }
        }
      } catch (err) {
        // The reader's own error (a full disk, more bytes than declared: handed on as it is) or an answer
        // that breaks HTTP.
        state = 'done';
        fail(err as Error);
        socket.destroy();
      }
    };

    let request = `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    for (const [name, value] of Object.entries(req.headers)) {
      if (/[\r\n]/.test(name + value)) return reject(new Error(`the header ${name} holds a line break`));
      request += `${name}: ${value}\r\n`;
    }
    socket.write(`${request}connection: close\r\n\r\n`);
  });
}

/** The status line and header fields, as Node's http client gives them (names lower-cased, repeats joined). */
function parseHead(text: string): { status: number; headers: IncomingHttpHeaders } {
  const lines = text.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0] ?? '');
  if (!m) throw broken(`not an HTTP answer (${JSON.stringify((lines[0] ?? '').slice(0, 40))})`);
  const headers: Record<string, string | string[]> = {};
  for (const l of lines.slice(1)) {
    const colon = l.indexOf(':');
    if (colon <= 0) continue;
    const name = l.slice(0, colon).trim().toLowerCase();
    const value = l.slice(colon + 1).trim();
    const had = headers[name];
    if (name === 'set-cookie') headers[name] = [...((had as string[] | undefined) ?? []), value];
    else headers[name] = had === undefined ? value : `${had as string}, ${value}`;
  }
  return { status: Number(m[1]), headers: headers as IncomingHttpHeaders };
}

/** An answer that breaks HTTP/1.1 (code as Node's parser would give). */
function broken(message: string): Error {
  return Object.assign(new Error(message), { code: 'HPE_INVALID' });
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
