// The download reader that reads a GET straight off the socket (src/api/wire.ts): every framing a server may
// use, split across reads anywhere, gives the body byte for byte; a body cut short fails like a broken
// connection; an error of the writer stops the reading and comes back as it was thrown.
import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { wireGet } from '../../src/api/wire.js';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A TCP server that reads one request head, hands it to `answer`, and writes what it is told, piece by piece. */
async function serve(answer: (head: string, socket: Socket) => void): Promise<URL> {
  const server = createServer((socket) => {
    let head = '';
    socket.on('data', (c) => {
      head += c.toString('latin1');
      if (head.includes('\r\n\r\n')) answer(head, socket);
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return new URL(`http://127.0.0.1:${port}/files/x.ipa?signature=abc`);
}

/** Writes the pieces one after another, a moment apart (so each is most likely a read of its own on the other side). */
async function writeApart(socket: Socket, pieces: Array<string | Buffer>, end = true): Promise<void> {
  for (const p of pieces) {
    await new Promise<void>((r) => socket.write(p, () => setTimeout(r, 5)));
  }
  if (end) socket.end();
}

const get = (url: URL, headers: Record<string, string> = {}) =>
  wireGet({ url, headers, signal: new AbortController().signal, connectTimeoutMs: 5000 });

async function drained(url: URL): Promise<{ status: number; bytes: Buffer; headers: Record<string, unknown> }> {
  const answer = await get(url);
  const parts: Buffer[] = [];
  await answer.body.drainInto((b) => parts.push(Buffer.from(b)));
  return { status: answer.statusCode, bytes: Buffer.concat(parts), headers: answer.headers };
}

const body = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 251));

describe('wireGet', () => {
  it('sends one GET with its headers and the path and query, and reads a Content-Length body split anywhere, the head too', async () => {
    let seen = '';
    const url = await serve((head, s) => {
      seen = head;
      const whole = Buffer.concat([
        Buffer.from(
          `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nX-Request-Id: req_1\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n`,
        ),
        body,
      ]);
      void writeApart(s, [
        whole.subarray(0, 10),
        whole.subarray(10, 60),
        whole.subarray(60, 5000),
        whole.subarray(5000),
      ]);
    });
    const r = await drained(url);
    expect(seen).toMatch(/^GET \/files\/x\.ipa\?signature=abc HTTP\/1\.1\r\n/);
    expect(seen).toContain(`host: ${url.host}\r\n`);
    expect(r.status).toBe(200);
    expect(r.headers['x-request-id']).toBe('req_1');
    expect(r.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(r.bytes.equals(body)).toBe(true);
  });

  it('reads a chunked body whose sizes, data and line ends fall across reads, with extensions and trailers', async () => {
    const url = await serve((_h, s) => {
      const a = body.subarray(0, 30_000);
      const b = body.subarray(30_000);
      void writeApart(
        s,
        [
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7',
          `530;ext=1\r\n`,
          a.subarray(0, 100),
          Buffer.concat([a.subarray(100), Buffer.from('\r')]),
          `\n${b.length.toString(16)}\r\n`,
          Buffer.concat([b, Buffer.from('\r\n0\r\nX-Trailer: 1\r\n')]),
          '\r\n',
        ],
        false,
      );
    });
    const r = await drained(url);
    expect(r.bytes.equals(body)).toBe(true);
  });

  it('reads to the close when the answer has no framing; skips a 100 Continue before the answer', async () => {
    const url = await serve(
      (_h, s) =>
        void writeApart(s, [
          'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 206 Partial Content\r\nContent-Range: bytes 5-9/10\r\n\r\n',
          body.subarray(0, 40_000),
          body.subarray(40_000),
        ]),
    );
    const r = await drained(url);
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe('bytes 5-9/10');
    expect(r.bytes.equals(body)).toBe(true);
  });

  it('a body cut short is a broken connection (ECONNRESET), with the bytes before it delivered', async () => {
    const url = await serve(
      (_h, s) =>
        void writeApart(s, [`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`, body.subarray(0, 1000)]),
    );
    const answer = await get(url);
    let got = 0;
    const err = await answer.body.drainInto((b) => void (got += b.length)).catch((e: NodeJS.ErrnoException) => e);
    expect(got).toBe(1000);
    expect(err).toMatchObject({ code: 'ECONNRESET', message: 'the answer broke off' });
    expect(answer.body.complete).toBe(false);
  });

  it("an error thrown by the writer stops the reading and is the download's error, as it was thrown", async () => {
    const url = await serve(
      (_h, s) =>
        void writeApart(s, [
          `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`,
          body.subarray(0, 1000),
          body.subarray(1000),
        ]),
    );
    const answer = await get(url);
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    let calls = 0;
    const err = await answer.body
      .drainInto(() => {
        calls++;
        throw full;
      })
      .catch((e: unknown) => e);
    expect(err).toBe(full);
    expect(calls).toBe(1);
  });

  it('an error answer is read by iteration (a copy of each piece), and then the body is complete', async () => {
    const text = JSON.stringify({
      error: { type: 'invalid_request_error', code: 'signed_url_expired', message: 'expired' },
    });
    const url = await serve(
      (_h, s) =>
        void writeApart(s, [
          `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${text.length}\r\n\r\n${text.slice(0, 20)}`,
          text.slice(20),
        ]),
    );
    const answer = await get(url);
    let read = '';
    for await (const c of answer.body) read += c.toString();
    expect(answer.statusCode).toBe(403);
    expect(read).toBe(text);
    expect(answer.body.complete).toBe(true);
  });

  it('iterated, a large body is read whole and in order (the socket is paused while the reader lags)', async () => {
    const big = Buffer.alloc(8 << 20);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(i, i);
    const url = await serve((_h, s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n`);
      s.end(big);
    });
    const answer = await get(url);
    const hash = createHash('sha256');
    for await (const c of answer.body) {
      hash.update(c);
      await new Promise((r) => setImmediate(r));
    }
    expect(hash.digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));
  });

  it('refuses an answer that is not HTTP, and a chunk size that is not hexadecimal', async () => {
    const notHttp = await serve((_h, s) => void writeApart(s, ['SSH-2.0-OpenSSH\r\n\r\n']));
    await expect(get(notHttp)).rejects.toMatchObject({ code: 'HPE_INVALID' });
    const badChunk = await serve(
      (_h, s) => void writeApart(s, ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n']),
    );
    const answer = await get(badChunk);
    await expect(answer.body.drainInto(() => {})).rejects.toMatchObject({ code: 'HPE_INVALID' });
  });

  it('refuses a Content-Length that is not one number (as Node does), and takes a repeated one (as RFC 9112 6.3 allows)', async () => {
    for (const length of ['abc', '5, 6']) {
      const bad = await serve(
        (_h, s) => void writeApart(s, [`HTTP/1.1 200 OK\r\nContent-Length: ${length}\r\n\r\nhello`]),
      );
      await expect(get(bad)).rejects.toMatchObject({ code: 'HPE_INVALID' });
    }
    const repeated = await serve(
      (_h, s) => void writeApart(s, ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello'], false),
    );
    expect((await drained(repeated)).bytes.toString()).toBe('hello');
  });

  it('is refused (ECONNREFUSED) where nothing listens, and stopped by its signal', async () => {
    const url = await serve(() => {});
    servers.pop()!.close();
    await expect(get(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const silent = await serve(() => {});
    const stop = new AbortController();
    const pending = wireGet({ url: silent, headers: {}, signal: stop.signal, connectTimeoutMs: 5000 });
    stop.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('refuses a header with a line break before connecting: no connection is left open behind the refusal', async () => {
    let connections = 0;
    const url = await serve((_head, socket) => socket.end('HTTP/1.1 204 No Content\r\n\r\n'));
    servers[servers.length - 1]!.on('connection', () => connections++);
    await expect(get(url, { 'x-smuggled': 'a\r\nhost: elsewhere' })).rejects.toThrow('holds a line break');
    const answer = await get(url);
    expect(answer.statusCode).toBe(204);
    expect(connections).toBe(1);
  });
});
