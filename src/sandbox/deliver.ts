// The sandbox's webhook POSTs, written straight to a kept-alive socket. Node's http client cost a delivery
// about 60 µs of its own on a 2-core machine (ClientRequest, the agent, OutgoingMessage, the parser and an
// IncomingMessage stream for an answer that is read only for its status): under 100 webhooks on every event
// that was half the sandbox's time, and the deliveries fell behind the events. Here a request is one
// buffer and one write, and an answer is read for its status and framing and dropped, from a buffer every
// connection shares (the reading is synchronous). It speaks what a webhook needs: HTTP/1.1 POST, answers
// framed by Content-Length, chunked, or the connection's close; one request at a time on a connection.
import { connect as netConnect, type Socket } from 'node:net';

export interface PostTarget {
  https: boolean;
  /** Where to connect: the URL's host without brackets, and its port. */
  host: string;
  port: number;
  /** For TLS: the name the certificate must carry (a host name; none for an IP address). */
  servername?: string | undefined;
  /** The request line's target (path and query) and the Host header. */
  path: string;
  hostHeader: string;
}

/** A connection left open this long with nothing to carry is closed (below Node's servers' 5 s). */
const IDLE_MS = 4_000;
const MAX_HEAD = 16 << 10;
const LF = 10;

/** One shared read buffer: every answer is read synchronously out of it before the next read lands. */
let shared: Buffer | null = null;

/** An answer's progress on its connection. */
type Phase = 'head' | 'fixed' | 'size' | 'data' | 'data-end' | 'trailer' | 'close';

class Conn {
  readonly socket: Socket;
  /** Answers this connection has carried: a request on a reused connection that dies unanswered is sent again once. */
  used = 0;
  private phase: Phase = 'head';
  private head: Buffer | null = null;
  private line = '';
  private remaining = 0;
  private status = 0;
  private keep = true;
  /** Bytes of the current answer seen: none means the server never took the request. */
  private seen = false;
  private waiting: { ok: (status: number) => void; fail: (err: Error & { unanswered?: boolean }) => void } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  dead = false;

  constructor(
    readonly key: string,
    t: PostTarget,
    private readonly release: (c: Conn) => void,
  ) {
    shared ??= Buffer.allocUnsafe(64 << 10);
    const buffer = shared;
    const onread = { buffer, callback: (n: number) => (this.read(buffer, n), true) };
    this.socket = t.https
      ? // (node:tls taken when a webhook is on https, not when the sandbox starts)
        (process.getBuiltinModule('node:tls') as typeof import('node:tls')).connect({ host: t.host, port: t.port, ...(t.servername ? { servername: t.servername } : {}), ALPNProtocols: ['http/1.1'], onread } as import('node:tls').ConnectionOptions)
      : netConnect({ host: t.host, port: t.port, onread, noDelay: true });
    this.socket.on('error', (err) => this.end(err));
    this.socket.on('close', () => {
      if (this.phase === 'close' && this.waiting) return this.answered();
      this.end(Object.assign(new Error(this.seen ? 'the answer broke off' : 'the connection closed before an answer'), { code: 'ECONNRESET' }));
    });
  }

  send(request: Buffer, signal: AbortSignal): Promise<number> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.phase = 'head';
    this.seen = false;
    this.keep = true;
    return new Promise<number>((ok, fail) => {
      const abort = () => this.socket.destroy(Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }));
      if (signal.aborted) return fail(Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }));
      signal.addEventListener('abort', abort, { once: true });
      this.waiting = {
        ok: (s) => (signal.removeEventListener('abort', abort), ok(s)),
        fail: (e) => (signal.removeEventListener('abort', abort), fail(e)),
      };
      this.socket.write(request);
    });
  }

  /** The connection is gone: an answer it owed fails (marked unanswered when not one byte of it came). */
  private end(err: Error): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const w = this.waiting;
    this.waiting = null;
    if (!this.dead) {
      this.dead = true;
      this.socket.destroy();
      this.release(this);
    }
    if (w) w.fail(Object.assign(err, { unanswered: !this.seen }));
  }

  private answered(): void {
    const w = this.waiting!;
    this.waiting = null;
    this.used++;
    if (this.keep && this.phase !== 'close' && !this.dead) {
      this.idleTimer = setTimeout(() => this.end(new Error('idle')), IDLE_MS);
      this.idleTimer.unref();
      this.release(this);
    } else this.end(new Error('closed'));
    w.ok(this.status);
  }

  private read(buffer: Buffer, n: number): void {
    if (!this.waiting) {
      // Bytes no request asked for: the connection can no longer be trusted to frame the next answer.
      if (n > 0) this.end(new Error('bytes after the answer'));
      return;
    }
    this.seen = true;
    try {
      if (this.phase !== 'head') return this.body(buffer, 0, n);
      // (a view of the shared buffer, or a copy joined to the head's start from earlier reads)
      let bytes = this.head ? Buffer.concat([this.head, buffer.subarray(0, n)]) : buffer.subarray(0, n);
      this.head = null;
      for (;;) {
        const end = bytes.indexOf('\r\n\r\n');
        if (end === -1) {
          if (bytes.length > MAX_HEAD) throw broken('the head of the answer is too long');
          if (bytes.length) this.head = Buffer.from(bytes); // (a copy: the shared buffer is read into again)
          return;
        }
        const final = this.takeHead(bytes.toString('latin1', 0, end));
        bytes = bytes.subarray(end + 4);
        if (final) break; // else an interim answer (100 Continue): the real one follows
      }
      if ((this.phase as Phase) === 'fixed' && this.remaining === 0) {
        if (bytes.length) throw broken('more bytes than the answer declared');
        return this.answered();
      }
      this.body(bytes, 0, bytes.length);
    } catch (err) {
      this.end(err as Error);
    }
  }

  /** The status line and the fields that frame the answer; false for a 1xx (the real answer follows). */
  private takeHead(text: string): boolean {
    const m = /^HTTP\/1\.([01]) (\d{3})(?: |\r|$)/.exec(text);
    if (!m) throw broken(`not an HTTP answer (${JSON.stringify(text.slice(0, 40))})`);
    const status = Number(m[2]);
    if (status >= 100 && status < 200) return false;
    this.status = status;
    let length = -1;
    let chunked = false;
    let connection = m[1] === '0' ? 'close' : '';
    for (const line of text.split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim().toLowerCase();
      if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (length !== -1 && length !== Number(value))) throw broken('a Content-Length that is not one number');
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = /\bchunked\b/.test(value);
      else if (name === 'connection') connection = value;
    }
    this.keep = !/\bclose\b/.test(connection) && (m[1] === '1' || /\bkeep-alive\b/.test(connection));
    if (status === 204 || status === 304) ((this.phase = 'fixed'), (this.remaining = 0));
    else if (chunked) this.phase = 'size';
    else if (length >= 0) ((this.phase = 'fixed'), (this.remaining = length));
    else this.phase = 'close';
    return true;
  }

  /** Skips the answer's body in bytes[at, end). */
  private body(bytes: Buffer, at: number, end: number): void {
    while (at < end && this.waiting) {
      switch (this.phase) {
        case 'fixed': {
          const n = Math.min(this.remaining, end - at);
          this.remaining -= n;
          at += n;
          if (this.remaining === 0) {
            if (at < end) throw broken('more bytes than the answer declared');
            return this.answered();
          }
          break;
        }
        case 'close':
          return; // until the connection closes
        case 'size':
        case 'data-end':
        case 'trailer': {
          const stop = bytes.indexOf(LF, at);
          this.line += bytes.toString('latin1', at, stop === -1 || stop > end ? end : stop);
          if (this.line.length > 4096) throw broken('a line of the answer is too long');
          if (stop === -1 || stop >= end) return;
          at = stop + 1;
          const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
          this.line = '';
          if (this.phase === 'size') {
            const size = line.split(';')[0]!.trim();
            if (!/^[0-9a-f]{1,12}$/i.test(size)) throw broken('a chunk size that is not hexadecimal');
            this.remaining = parseInt(size, 16);
            this.phase = this.remaining === 0 ? 'trailer' : 'data';
          } else if (this.phase === 'data-end') {
            if (line !== '') throw broken('a chunk longer than its size');
            this.phase = 'size';
          } else if (line === '') {
            if (at < end) throw broken('more bytes than the answer declared');
            return this.answered();
          }
          break;
        }
        case 'data': {
          const n = Math.min(this.remaining, end - at);
          this.remaining -= n;
          at += n;
          if (this.remaining === 0) this.phase = 'data-end';
          break;
        }
        default:
          return;
      }
    }
  }
}

function broken(message: string): Error {
  return Object.assign(new Error(message), { code: 'HPE_INVALID' });
}

/** Kept-alive connections by origin, the last one freed taken first (the others time out). */
export class Poster {
  private idle = new Map<string, Conn[]>();
  private all = new Set<Conn>();
  private closed = false;

  /** POSTs `body` with `headers` (names and values of the sandbox's own making); the answer's status. */
  async post(t: PostTarget, headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<number> {
    let head = `POST ${t.path} HTTP/1.1\r\nhost: ${t.hostHeader}\r\ncontent-length: ${body.length}\r\n`;
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    head += '\r\n';
    const size = Buffer.byteLength(head, 'latin1');
    const request = Buffer.allocUnsafe(size + body.length);
    request.write(head, 0, 'latin1');
    body.copy(request, size);
    const key = `${t.https ? 's' : ''}${t.host}:${t.port}:${t.servername ?? ''}`;
    for (let fresh = false; ; fresh = true) {
      const conn = (fresh ? null : this.idle.get(key)?.pop()) ?? this.open(key, t);
      try {
        return await conn.send(request, signal);
      } catch (err) {
        // A kept-alive connection the server closed as the request went: sent once more, on a new one.
        if (!fresh && conn.used > 0 && (err as { unanswered?: boolean }).unanswered && !signal.aborted && !this.closed) continue;
        throw err;
      }
    }
  }

  private open(key: string, t: PostTarget): Conn {
    if (this.closed) throw Object.assign(new Error('the sandbox is stopping'), { code: 'ECONNABORTED' });
    const conn = new Conn(key, t, (c) => {
      if (c.dead) {
        this.all.delete(c);
        const list = this.idle.get(c.key);
        const i = list?.indexOf(c) ?? -1;
        if (i >= 0) list!.splice(i, 1);
      } else {
        let list = this.idle.get(c.key);
        if (!list) this.idle.set(c.key, (list = []));
        list.push(c);
      }
    });
    this.all.add(conn);
    return conn;
  }

  destroy(): void {
    this.closed = true;
    for (const c of [...this.all]) c.socket.destroy();
  }
}
