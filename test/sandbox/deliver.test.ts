// The sandbox's webhook poster (src/sandbox/deliver.ts): a POST written straight to a kept-alive socket and
// its answer read for the status. Every framing a receiver may use, split across reads anywhere, leaves the
// connection ready for the next delivery; a connection the receiver closed while idle costs no delivery; a
// refused, broken, hanging or aborted exchange fails as Node's client would have failed it.
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Poster, type PostTarget } from '../../src/sandbox/deliver.js';
import { sandboxTls } from '../../src/sandbox/tls.js';
import { until } from '../helpers/until.js';

const closers: Array<() => void> = [];
const posters: Poster[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
  for (const p of posters.splice(0)) p.destroy();
});

const target = (port: number, path = '/hook?x=1'): PostTarget => ({
  https: false,
  host: '127.0.0.1',
  port,
  path,
  hostHeader: `127.0.0.1:${port}`,
});
const poster = () => {
  const p = new Poster();
  posters.push(p);
  return p;
};
const post = (p: Poster, t: PostTarget, body = '{"id":"evt_1"}', signal = new AbortController().signal) =>
  p.post(t, { 'content-type': 'application/json', 'x-orc-delivery': 'dlv_1' }, Buffer.from(body), signal);

const DROP = '(the connection dropped here)';

/** A TCP server that, for each request it reads, writes the next of `answers` piece by piece (or hangs, or closes). */
async function scripted(
  answers: Array<Array<string> | 'hang' | 'close'>,
): Promise<{ port: number; connections: () => number; requests: string[] }> {
  let connections = 0;
  let next = 0;
  const requests: string[] = [];
  const server: Server = createServer((socket: Socket) => {
    connections++;
    let pending = '';
    socket.on('error', () => {});
    socket.on('data', async (c) => {
      pending += c.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        requests.push(pending.slice(0, end + 4 + length));
        pending = pending.slice(end + 4 + length);
        const answer = answers[next++];
        if (answer === 'hang' || answer === undefined) return;
        if (answer === 'close') return void socket.destroy();
        for (const piece of answer) {
          if (piece === DROP) socket.destroy();
          else await new Promise<void>((r) => socket.write(piece, () => setTimeout(r, 3)));
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return { port: (server.address() as { port: number }).port, connections: () => connections, requests };
}

describe('the webhook poster', () => {
  it('sends the body and headers intact and carries delivery after delivery on one connection', async () => {
    const seen: Array<{ req: IncomingMessage; body: string }> = [];
    const sockets = new Set<unknown>();
    const server = createHttpServer((req, res) => {
      sockets.add(req.socket);
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ req, body });
        res.writeHead(seen.length % 2 ? 201 : 500, { 'content-type': 'text/plain' }).end('answer body, dropped');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const port = (server.address() as { port: number }).port;
    const p = poster();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push(await post(p, target(port), `{"n":${i},"text":"héllo ✓"}`));
    expect(statuses).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? 500 : 201)));
    expect(sockets.size).toBe(1);
    expect(seen[3]!.body).toBe('{"n":3,"text":"héllo ✓"}');
    expect(seen[3]!.req.method).toBe('POST');
    expect(seen[3]!.req.url).toBe('/hook?x=1');
    expect(seen[3]!.req.headers).toMatchObject({
      host: `127.0.0.1:${port}`,
      'content-type': 'application/json',
      'x-orc-delivery': 'dlv_1',
      'content-length': String(Buffer.byteLength(seen[3]!.body)),
    });
  });

  it('reads every framing, split anywhere, and keeps the connection only where the answer allows', async () => {
    const s = await scripted([
      ['HTTP/1.1 200 OK\r\nContent-Le', 'ngth: 5\r\n\r\nhel', 'lo'],
      ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n'],
      [
        'HTTP/1.1 203 OK\r\nTransfer-Encoding: chunked\r\n\r\n',
        '4\r',
        '\nabcd\r\n',
        '3;ext=1\r\nefg\r\n0\r\n',
        'x-trailer: 1\r\n\r\n',
      ],
      ['HTTP/1.1 204 No Content\r\n\r\n'],
      ['HTTP/1.1 410 Gone\r\nconnection: close\r\ncontent-length: 3\r\n\r\nbye'],
      ['HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n1'],
    ]);
    const p = poster();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await post(p, target(s.port)));
    expect(statuses).toEqual([200, 202, 203, 204, 410, 200]);
    // five answers on the first connection; "connection: close" made the sixth open another
    expect(s.connections()).toBe(2);
    expect(s.requests).toHaveLength(6);
  });

  it('takes an answer that ends with the connection, and an HTTP/1.0 answer, then opens a new one', async () => {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () =>
        socket.end('HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\n\r\nall of this until the close'),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const p = poster();
    const port = (server.address() as { port: number }).port;
    expect(await post(p, target(port))).toBe(200);
    expect(await post(p, target(port))).toBe(200);
  });

  it('sends a delivery once more on a new connection when a kept-alive one was closed under it', async () => {
    // the second request meets a connection the receiver drops without answering (its idle timeout, say)
    const s = await scripted([
      ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'],
      'close',
      ['HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n'],
    ]);
    const p = poster();
    expect(await post(p, target(s.port))).toBe(200);
    expect(await post(p, target(s.port))).toBe(201);
    expect(s.connections()).toBe(2);
    expect(s.requests).toHaveLength(3);
  });

  it('fails, and does not send again, when a new connection closes unanswered or an answer breaks off', async () => {
    const s = await scripted(['close', ['HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc', DROP]]);
    const p = poster();
    await expect(post(p, target(s.port))).rejects.toMatchObject({
      code: 'ECONNRESET',
      message: 'the connection closed before an answer',
    });
    expect(s.requests).toHaveLength(1);
    await expect(post(p, target(s.port))).rejects.toMatchObject({
      code: 'ECONNRESET',
      message: 'the answer broke off',
    });
    expect(s.requests).toHaveLength(2);
  });

  it('fails as an invalid answer on bytes that are not HTTP, and on more bytes than declared', async () => {
    const s = await scripted([['SMTP ready\r\n\r\n'], ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nabcdef']]);
    const p = poster();
    await expect(post(p, target(s.port))).rejects.toMatchObject({ code: 'HPE_INVALID' });
    await expect(post(p, target(s.port))).rejects.toMatchObject({
      code: 'HPE_INVALID',
      message: 'more bytes than the answer declared',
    });
    expect(s.connections()).toBe(2);
  });

  it('is refused as ECONNREFUSED, and stops at an abort, leaving no connection behind', async () => {
    const closed = await scripted([]);
    closers.pop()!();
    await new Promise((r) => setTimeout(r, 20));
    const p = poster();
    await expect(post(p, target(closed.port))).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    const s = await scripted(['hang', ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n']]);
    const ac = new AbortController();
    const hanging = post(p, target(s.port), '{}', ac.signal);
    await until(() => s.requests.length === 1, 'the delivery to arrive');
    ac.abort();
    await expect(hanging).rejects.toMatchObject({ name: 'AbortError' });
    // the aborted connection is not reused: the next delivery goes on a new one and is answered
    expect(await post(p, target(s.port))).toBe(200);
    expect(s.connections()).toBe(2);
  });

  it('drops a kept-alive connection that sends bytes nobody asked for', async () => {
    let connections = 0;
    let dropped!: () => void;
    const droppedByPoster = new Promise<void>((r) => (dropped = r));
    const server = createServer((socket) => {
      connections++;
      socket.on('error', () => {});
      socket.once('data', () => {
        // an answer, then the start of another that no request asked for
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n', () =>
          setTimeout(() => socket.write('HTTP/1.1 200 OK\r\n'), 20),
        );
        socket.on('data', () => socket.write('HTTP/1.1 500 Wrong\r\ncontent-length: 0\r\n\r\n'));
        socket.on('close', () => dropped());
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const port = (server.address() as { port: number }).port;
    const p = poster();
    expect(await post(p, target(port))).toBe(200);
    await droppedByPoster;
    expect(await post(p, target(port))).toBe(200);
    expect(connections).toBe(2);
  });

  it('speaks TLS, checking the certificate against the name: an untrusted one is refused, a trusted one kept alive', async () => {
    const cert = sandboxTls(mkdtempSync(join(tmpdir(), 'orc-deliver-tls-')), ['hooks.example.test'], Date.now());
    const sockets = new Set<unknown>();
    const server = createHttpsServer({ cert: cert.cert, key: cert.key }, (req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const port = (server.address() as { port: number }).port;
    const t: PostTarget = {
      ...target(port),
      https: true,
      servername: 'hooks.example.test',
      hostHeader: 'hooks.example.test',
    };
    const p = poster();
    await expect(post(p, t)).rejects.toMatchObject({ code: expect.stringMatching(/CERT|VERIFY/) });
    const defaults = tls.getCACertificates('default');
    tls.setDefaultCACertificates([...defaults, readFileSync(cert.caFile, 'utf8')]);
    try {
      await expect(post(p, { ...t, servername: 'other.example.test' })).rejects.toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      });
      expect(await post(p, t)).toBe(200);
      expect(await post(p, t)).toBe(200);
      expect(sockets.size).toBe(1);
    } finally {
      tls.setDefaultCACertificates(defaults);
    }
  });
});
