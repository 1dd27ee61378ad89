// The receiving end of `orc verify --write`'s webhook: on 127.0.0.1, it keeps each delivery as it came (headers
// and raw body, for verify to judge), answers the first 500 to see it retried and every other 200. Beside
// `webhook listen`'s receiver (listen.ts), whose bounded body reader it shares.
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './listen.js';

export interface Delivered {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** What the listener answered. */
  status: number;
}

/** A receiver on 127.0.0.1: the first delivery answered 500 (to see it retried), every other 200. */
export class DeliveryCatcher {
  readonly got: Delivered[] = [];
  private readonly told = new Set<() => void>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<DeliveryCatcher> {
    const http = process.getBuiltinModule('node:http') as typeof import('node:http');
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const catcher = new DeliveryCatcher(server, `http://127.0.0.1:${port}/orc-verify`);
    server.on('request', (req, res) => void catcher.receive(req, res));
    return catcher;
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // An event is small: a delivery past the contract's body limit is refused, not kept (memory stays bounded).
    const raw = await readBody(req, res);
    if (!raw) return;
    const status = this.got.length === 0 ? 500 : 200;
    this.got.push({ headers: req.headers, raw, status });
    res.writeHead(status).end();
    for (const tell of this.told) tell();
  }

  /** Resolves true once `done` holds, false when `ms` pass (on the api's clock) or the signal aborts first. */
  until(done: () => boolean, ms: number, timer: (ms: number, fn: () => void) => () => void, signal?: AbortSignal) {
    return new Promise<boolean>((resolve) => {
      const finish = (ok: boolean) => {
        this.told.delete(check);
        cancel();
        signal?.removeEventListener('abort', stop);
        resolve(ok);
      };
      const check = () => done() && finish(true);
      const stop = () => finish(false);
      const cancel = timer(ms, stop);
      this.told.add(check);
      signal?.addEventListener('abort', stop, { once: true });
      if (signal?.aborted) stop();
      else check();
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
