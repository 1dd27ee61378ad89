// An HTTP/1.1 answer read off a socket: its head, and where its body ends (Content-Length, chunked, or the
// connection's close), for the two readers that skip Node's http client: orc's downloads (api/wire.ts),
// which hand the body on, and the sandbox's webhook poster (sandbox/deliver.ts), which drops it. Bytes are
// fed as they are read; the body's bytes come out as views of what was fed, valid during the call only.
// It refuses what Node's own parser (llhttp, strict) refuses, as test/lib/http1.test.ts checks answer by
// answer against it: a folded line, space before a colon, a line without one, a name or value with bytes a
// field may not hold, a bare LF, Transfer-Encoding with Content-Length, and more trailer than a head may hold.
import type { IncomingHttpHeaders } from 'node:http';

const MAX_HEAD = 64 << 10;
const MAX_LINE = 4096;
const LF = 10;
/** A field name: a token (RFC 9110 5.1). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value: visible characters, spaces, tabs and obs-text; no other control character (RFC 9110 5.5). */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface AnswerHead {
  status: number;
  /** As Node's http client gives them: names lower-cased, repeats joined with ", " (set-cookie: a list). */
  headers: IncomingHttpHeaders;
  /** The connection may carry another request after this answer. */
  keepAlive: boolean;
}

export interface AnswerSink {
  /** The final answer's head (interim 1xx answers are skipped). */
  head(head: AnswerHead): void;
  body(bytes: Uint8Array): void;
  /** Every byte of the body came. */
  end(): void;
}

type Phase = 'head' | 'fixed' | 'close' | 'size' | 'data' | 'data-end' | 'trailer' | 'done';

/** One answer's framing. Throws (code HPE_INVALID) on bytes that break HTTP/1.1; a sink's throw passes through. */
export class AnswerReader {
  private phase: Phase = 'head';
  private pending: Buffer | null = null;
  private line = '';
  private remaining = 0;
  /** Bytes of trailer fields so far: bounded as a head is. */
  private trailer = 0;
  /** Some byte of the answer came: a connection that closes before that never took the request. */
  started = false;

  constructor(private readonly sink: AnswerSink) {}

  get done(): boolean {
    return this.phase === 'done';
  }

  /** Feeds bytes read; how many of them belong to this answer (the rest, if any, came after its end). */
  feed(bytes: Uint8Array): number {
    if (bytes.length) this.started = true;
    let at = 0;
    if (this.phase === 'head') {
      const joined = this.pending
        ? Buffer.concat([this.pending, bytes])
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
      const before = this.pending?.length ?? 0;
      this.pending = null;
      let from = 0;
      for (;;) {
        const end = joined.indexOf('\r\n\r\n', from);
        const to = end === -1 ? joined.length : end;
        if (bareLf(joined, from, to)) throw broken('a line of the answer that ends in a bare LF');
        if (end === -1) {
          if (joined.length - from > MAX_HEAD) throw broken('the head of the answer is too long');
          // (a copy: the caller's buffer is read into again)
          if (joined.length > from) this.pending = Buffer.from(joined.subarray(from));
          return bytes.length;
        }
        const head = this.takeHead(joined.toString('latin1', from, end));
        from = end + 4;
        if (head) {
          this.sink.head(head);
          break;
        }
      }
      at = from - before;
      if ((this.phase as Phase) === 'fixed' && this.remaining === 0) return this.finish(at);
    }
    return this.body(bytes, at);
  }

  /** The connection closed: true when that ends the answer (one framed by the close). */
  closed(): boolean {
    if (this.phase !== 'close') return this.phase === 'done';
    this.finish(0);
    return true;
  }

  private finish(at: number): number {
    this.phase = 'done';
    this.sink.end();
    return at;
  }

  /** The status line and the fields that frame the body; null for an interim answer (1xx). */
  private takeHead(text: string): AnswerHead | null {
    const lines = text.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})(?: [\t\x20-\x7e\x80-\xff]*)?$/.exec(lines[0] ?? '');
    if (!m) throw broken(`not an HTTP answer (${JSON.stringify((lines[0] ?? '').slice(0, 40))})`);
    const status = Number(m[2]);
    if (status >= 100 && status < 200) return null;
    const headers: Record<string, string | string[]> = {};
    for (const l of lines.slice(1)) {
      const [name, value] = field(l);
      const had = headers[name];
      if (name === 'set-cookie') headers[name] = [...((had as string[] | undefined) ?? []), value];
      else headers[name] = had === undefined ? value : `${had as string}, ${value}`;
    }
    const connection = String(headers.connection ?? (m[1] === '0' ? 'close' : '')).toLowerCase();
    let keepAlive = !/\bclose\b/.test(connection) && (m[1] === '1' || /\bkeep-alive\b/.test(connection));
    const length = headers['content-length'] as string | undefined;
    const coding = headers['transfer-encoding'] as string | undefined;
    // Both: a smuggling attempt as likely as a mistake (RFC 9112 6.3), refused as Node refuses it.
    if (coding !== undefined && length !== undefined) throw broken('both Transfer-Encoding and Content-Length');
    if (status === 204 || status === 304) (this.phase = 'fixed'), (this.remaining = 0);
    // Chunked only when it is the last coding; any other ends with the connection (RFC 9112 6.3).
    else if (coding !== undefined) {
      if (/(^|,)\s*chunked\s*$/i.test(coding)) this.phase = 'size';
      else (this.phase = 'close'), (keepAlive = false);
    } else if (length !== undefined) {
      // (repeats of one value are joined by now: "5, 5" is one length, "5, 6" none)
      const values = new Set(length.split(',').map((v) => v.trim()));
      const [only] = values;
      if (values.size !== 1 || !/^\d{1,15}$/.test(only!))
        throw broken(`a Content-Length that is not one number (${JSON.stringify(length.slice(0, 40))})`);
      this.phase = 'fixed';
      this.remaining = Number(only);
    } else (this.phase = 'close'), (keepAlive = false);
    return { status, headers: headers as IncomingHttpHeaders, keepAlive };
  }

  /** The body's bytes in bytes[at…]; how many belong to this answer. */
  private body(bytes: Uint8Array, at: number): number {
    while (at < bytes.length) {
      switch (this.phase) {
        case 'fixed': {
          const n = Math.min(this.remaining, bytes.length - at);
          this.remaining -= n;
          this.sink.body(bytes.subarray(at, at + n));
          at += n;
          if (this.remaining === 0) return this.finish(at);
          break;
        }
        case 'close':
          this.sink.body(at ? bytes.subarray(at) : bytes);
          return bytes.length;
        case 'data': {
          const n = Math.min(this.remaining, bytes.length - at);
          this.remaining -= n;
          this.sink.body(bytes.subarray(at, at + n));
          at += n;
          if (this.remaining === 0) this.phase = 'data-end';
          break;
        }
        case 'size':
        case 'data-end':
        case 'trailer': {
          const stop = bytes.indexOf(LF, at);
          this.line += Buffer.from(
            bytes.buffer,
            bytes.byteOffset + at,
            (stop === -1 ? bytes.length : stop) - at,
          ).toString('latin1');
          if (this.line.length > MAX_LINE) throw broken('a line of the answer is too long');
          if (stop === -1) return bytes.length;
          at = stop + 1;
          if (!this.line.endsWith('\r')) throw broken('a line of the answer that ends in a bare LF');
          const line = this.line.slice(0, -1);
          this.line = '';
          if (line.includes('\r')) throw broken('a bare CR in a line of the answer');
          if (this.phase === 'size') {
            const size = line.split(';')[0]!;
            if (!/^[0-9a-f]{1,12}$/i.test(size))
              throw broken(`a chunk size that is not hexadecimal (${JSON.stringify(size.slice(0, 20))})`);
            this.remaining = parseInt(size, 16);
            this.phase = this.remaining === 0 ? 'trailer' : 'data';
          } else if (this.phase === 'data-end') {
            if (line !== '') throw broken('a chunk longer than its size');
            this.phase = 'size';
          } else if (line === '') return this.finish(at);
          else {
            field(line);
            if ((this.trailer += line.length + 2) > MAX_HEAD) throw broken('the trailer of the answer is too long');
          }
          break;
        }
        default:
          return at; // done: what follows is not this answer's
      }
    }
    return at;
  }
}

/** Whether an LF in buf[from…to) is not preceded by a CR (of the same head). */
function bareLf(buf: Buffer, from: number, to: number): boolean {
  for (let i = buf.indexOf(LF, from); i !== -1 && i < to; i = buf.indexOf(LF, i + 1)) {
    if (i === from || buf[i - 1] !== 13) return true;
  }
  return false;
}

/** A field line as name (lower-cased) and value (trimmed); anything else is refused, never passed over. */
function field(line: string): [string, string] {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon) : '';
  // (a folded line starts with a space; a name with one before its colon, or none, is no token)
  if (!TOKEN.test(name)) throw broken(`a field line that is not name: value (${JSON.stringify(line.slice(0, 40))})`);
  const value = line.slice(colon + 1).replace(/^[\t ]+|[\t ]+$/g, '');
  if (!VALUE.test(value)) throw broken(`a field value with a control character (${name})`);
  return [name.toLowerCase(), value];
}

/** An answer that breaks HTTP/1.1 (code as Node's parser would give). */
export function broken(message: string): Error {
  return Object.assign(new Error(message), { code: 'HPE_INVALID' });
}

/** The reason phrase of each status orc shows (`orc api -i`, --debug, an answer that is not JSON). */
export const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  206: 'Partial Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
