// The sandbox's webhook POSTs, written straight to a kept-alive socket. Node's http client cost a delivery
// CPU time of its own (ClientRequest, the agent, OutgoingMessage, the parser and an IncomingMessage stream
// for an answer that is read only for its status): under 100 webhooks on every event that was a large share
// of the sandbox's time (docs/figures.md), and the deliveries fell behind the events. Here a request is one
// buffer and one write, and an answer is read for its status and framing and dropped, from a buffer every
// connection shares (the reading is synchronous). It speaks what a webhook needs: HTTP/1.1 POST, answers
// framed by Content-Length, chunked, or the connection's close (read by lib/http1.ts, as orc's downloads
// are); one request at a time on a connection.
import { connect as netConnect, type Socket } from 'node:net';
import { AnswerReader, broken } from '../lib/http1.js';

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

/** One shared read buffer: every answer is read synchronously out of it before the next read lands. */
let shared: Buffer | null = null;

class Conn {
  readonly socket: Socket;
  /** Answers this connection has carried: a request on a reused connection that dies unanswered is sent again once. */
  used = 0;
  dead = false;
  /** The answer to the request in flight, read as it comes; its status, and whether the connection may carry another. */
  private answer: AnswerReader | null = null;
  private status = 0;
  private keep = false;
  private waiting: { ok: (status: number) => void; fail: (err: Error & { unanswered?: boolean }) => void } | null =
    null;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly key: string,
    t: PostTarget,
    private readonly release: (c: Conn) => void,
  ) {
    shared ??= Buffer.allocUnsafe(64 << 10);
    const buffer = shared;
    const onread = { buffer, callback: (n: number) => (this.read(buffer.subarray(0, n)), true) };
    this.socket = t.https
      ? // (node:tls taken when a webhook is on https, not when the sandbox starts)
        (process.getBuiltinModule('node:tls') as typeof import('node:tls')).connect({
          host: t.host,
          port: t.port,
          ...(t.servername ? { servername: t.servername } : {}),
          ALPNProtocols: ['http/1.1'],
          onread,
        } as import('node:tls').ConnectionOptions)
      : netConnect({ host: t.host, port: t.port, onread, noDelay: true });
    this.socket.on('error', (err) => this.end(err));
    this.socket.on('close', () => {
      // (an answer framed by the close ends here)
      if (this.waiting && this.answer?.closed()) return this.answered();
      this.end(
        Object.assign(
          new Error(this.answer?.started ? 'the answer broke off' : 'the connection closed before an answer'),
          { code: 'ECONNRESET' },
        ),
      );
    });
  }

  send(request: Buffer, signal: AbortSignal): Promise<number> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.answer = new AnswerReader({
      head: (h) => ((this.status = h.status), (this.keep = h.keepAlive)),
      body: () => {}, // read for its framing, and dropped
      end: () => {},
    });
    return new Promise<number>((ok, fail) => {
      const abort = () =>
        this.socket.destroy(
          Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }),
        );
      if (signal.aborted)
        return fail(Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }));
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
    if (w) w.fail(Object.assign(err, { unanswered: !this.answer?.started }));
  }

  private answered(): void {
    const w = this.waiting!;
    this.waiting = null;
    this.used++;
    if (this.keep && !this.dead) {
      this.idleTimer = setTimeout(() => this.end(new Error('idle')), IDLE_MS);
      this.idleTimer.unref();
      this.release(this);
    } else this.end(new Error('closed'));
    w.ok(this.status);
  }

  private read(bytes: Buffer): void {
    if (!this.waiting) {
      // Bytes no request asked for: the connection can no longer be trusted to frame the next answer.
      if (bytes.length > 0) this.end(new Error('bytes after the answer'));
      return;
    }
    try {
      const taken = this.answer!.feed(bytes);
      if (taken < bytes.length) throw broken('more bytes than the answer declared');
      if (this.answer!.done) this.answered();
    } catch (err) {
      this.end(err as Error);
    }
  }
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
        if (!fresh && conn.used > 0 && (err as { unanswered?: boolean }).unanswered && !signal.aborted && !this.closed)
          continue;
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
