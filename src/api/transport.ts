// The transport under the one exchange: Node's own http and https clients, with keep-alive agents.
// Measured against undici's Agent (bundled, with its llhttp wasm) on this kind of machine, node:http
// answers a whole `orc run get` sooner and needs no dependency; https loads only for https. The modules
// come from process.getBuiltinModule, not `import`: an ESM import of node:http enumerates its exports,
// whose lazy WebSocket getters load Node's internal undici (~13 ms at every command).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Agent } from 'node:http';
import { Readable } from 'node:stream';

export interface TransportRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | AsyncIterable<Uint8Array>;
  signal: AbortSignal;
}

export interface TransportResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

export class Transport {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly connectTimeoutMs: number) {}

  request(req: TransportRequest): Promise<TransportResponse> {
    const mod = (req.url.protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http')) as typeof import('node:http');
    let agent = this.agents.get(req.url.protocol);
    if (!agent) {
      agent = new mod.Agent({ keepAlive: true, maxSockets: 16 });
      this.agents.set(req.url.protocol, agent);
    }
    return new Promise<TransportResponse>((resolve, reject) => {
      const r = mod.request(req.url, { method: req.method, headers: req.headers, agent, signal: req.signal });
      r.once('response', (res) => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res }));
      r.once('error', reject);
      r.once('socket', (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(() => r.destroy(Object.assign(new Error('timed out connecting'), { code: 'UND_ERR_CONNECT_TIMEOUT' })), this.connectTimeoutMs);
        timer.unref();
        socket.once('connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      });
      const body = req.body;
      if (body === undefined) r.end();
      else if (typeof body === 'string' || body instanceof Uint8Array) r.end(body);
      else Readable.from(body).on('error', (err) => r.destroy(err)).pipe(r);
    });
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
