// A small proxy of the tests' own between orc and the sandbox: it forwards, or misbehaves as told.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  | { kind: 'pass' }
  /** Forward, let the service answer, then cut the connection before orc sees the answer. */
  | { kind: 'reset-after-forward' }
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string }
  | { kind: 'redirect'; location: string; status?: number }
  /** Forward, then change the answer's body (and, when given, its status and its headers). */
  | {
      kind: 'rewrite';
      rewrite: (body: string) => string;
      status?: number;
      headers?: (headers: IncomingMessage['headers']) => IncomingMessage['headers'];
    }
  /** Stream the answer through, then after this many body bytes cut the connection, or (stall) go silent. */
  | { kind: 'cut-body'; afterBytes: number; stall?: boolean; ignoreRange?: boolean };

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

export interface FaultProxy {
  url: string;
  seen: SeenRequest[];
  /** Decides each request's fate; the n-th request (from 1) gets plan(req, n). Default: pass. */
  plan: (req: SeenRequest, n: number) => Fault;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const proxy: FaultProxy = { url: '', seen: [], plan: () => ({ kind: 'pass' }), close: async () => {} };
  const server: Server = createServer((req, res) => {
    const seen = { method: req.method!, url: req.url!, headers: req.headers };
    proxy.seen.push(seen);
    const fault = proxy.plan(seen, proxy.seen.length);
    if (fault.kind === 'answer') {
      req.resume();
      res.writeHead(fault.status, fault.headers ?? {});
      res.end(fault.body ?? '');
      return;
    }
    if (fault.kind === 'redirect') {
      req.resume();
      res.writeHead(fault.status ?? 307, { location: fault.location, 'x-request-id': 'req_proxy_redirect' });
      res.end();
      return;
    }
    // A server that ignores Range: the request goes on without it, and the whole file comes back (200).
    const { range: _range, ...rangeless } = req.headers;
    const headers = fault.kind === 'cut-body' && fault.ignoreRange ? rangeless : req.headers;
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (upRes) => {
        if (fault.kind === 'pass') {
          // Streamed as it comes: an event stream never ends while its run waits at a gate.
          res.writeHead(upRes.statusCode!, upRes.headers);
          res.flushHeaders();
          upRes.pipe(res);
          res.on('close', () => upRes.destroy());
          return;
        }
        if (fault.kind === 'cut-body') {
          res.writeHead(upRes.statusCode!, upRes.headers);
          res.flushHeaders();
          let sent = 0;
          let done = false;
          upRes.on('data', (c: Buffer) => {
            if (done) return;
            const room = fault.afterBytes - sent;
            if (c.length < room) {
              sent += c.length;
              res.write(c);
              return;
            }
            res.write(c.subarray(0, room)); // mid-event, as likely as not
            done = true;
            if (fault.stall)
              upRes.destroy(); // the client hears nothing more, not even keep-alives
            else setTimeout(() => req.socket.destroy(), 20);
          });
          res.on('close', () => upRes.destroy());
          return;
        }
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          if (fault.kind === 'reset-after-forward') {
            req.socket.destroy();
            return;
          }
          let body = Buffer.concat(chunks).toString('utf8');
          let headers = { ...upRes.headers };
          if (fault.kind === 'rewrite' && fault.headers) headers = fault.headers(headers);
          if (fault.kind === 'rewrite') {
            body = fault.rewrite(body);
            headers['content-length'] = String(Buffer.byteLength(body));
            // A chunked answer (an event stream) goes on whole, with its length: never both.
            delete headers['transfer-encoding'];
          }
          res.writeHead(fault.kind === 'rewrite' ? (fault.status ?? upRes.statusCode!) : upRes.statusCode!, headers);
          res.end(body);
        });
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
  return proxy;
}
