// The transport under the one exchange: Node's own http and https clients, with keep-alive agents; a
// download's GET is read straight off the socket instead (wire.ts).
// Measured against undici's Agent (bundled, with its llhttp wasm) on this kind of machine, node:http
// answers a whole `orc run get` sooner and needs no dependency; https loads only for https. The modules
// come from process.getBuiltinModule, not `import`: an ESM import of node:http enumerates its exports,
// whose lazy WebSocket getters load Node's internal undici (a cost at every command: docs/figures.md).
//
// Through a proxy (HTTPS_PROXY and the like, src/api/proxy.ts), requests go by via-proxy.ts, on the same
// Node clients: plain http in absolute form, https in a CONNECT tunnel; it is loaded only when a proxy is used.
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Agent } from 'node:http';
import { Readable } from 'node:stream';
import { ClientSettingError } from './errors.js';
import { proxyConfigured, proxyFor, redactProxy, type ProxyChoice } from './proxy.js';
import { certificatesWith } from './trust.js';

export interface TransportRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | AsyncIterable<Uint8Array>;
  signal: AbortSignal;
  /** A download: a GET whose body is read straight off the socket (wire.ts), unless it goes by a proxy. */
  wire?: boolean;
  /** An event stream, open as long as its run goes: on connections of its own, without a cap, so that twenty
   * runs watched at once neither wait for a place the requests need nor hold one (`watch --all` froze when the
   * streams took all of a shared pool). */
  longLived?: boolean;
}

/** Connections at once for requests (per protocol, per proxy route); event streams have their own, uncapped. */
export const MAX_SOCKETS = 16;

export interface TransportResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

export interface TransportOptions {
  connectTimeoutMs: number;
  /** Where the proxy variables are read (the command's environment). */
  env?: NodeJS.ProcessEnv;
  /** A PEM file of certificates to trust besides the system's (a profile's --ca-file). */
  caFile?: string;
  /** One line for --debug: which way a request goes. */
  debug?: (line: string) => void;
}

export class Transport {
  private readonly agents = new Map<string, Agent>();
  private readonly proxies = new Map<string, import('./via-proxy.js').ProxyRoute>();
  private ca: string[] | undefined | null = null;
  private readonly proxied: boolean;

  constructor(private readonly opts: TransportOptions) {
    this.proxied = opts.env !== undefined && proxyConfigured(opts.env);
  }

  request(req: TransportRequest): Promise<TransportResponse> {
    const proxy = this.proxied ? proxyFor(req.url, this.opts.env!) : null;
    if (proxy) return this.viaProxy(req, proxy);
    const https = req.url.protocol === 'https:';
    if (req.wire) {
      const { url, headers, signal } = req;
      return import('./wire.js').then(({ wireGet }) =>
        wireGet({
          url,
          headers,
          signal,
          connectTimeoutMs: this.opts.connectTimeoutMs,
          ca: https ? this.trusted() : undefined,
        }),
      ) as unknown as Promise<TransportResponse>;
    }
    const mod = (
      https ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http')
    ) as typeof import('node:http');
    const pool = req.longLived ? `${req.url.protocol}long` : req.url.protocol;
    let agent = this.agents.get(pool);
    if (!agent) {
      const ca = https ? this.trusted() : undefined;
      const maxSockets = req.longLived ? Infinity : MAX_SOCKETS;
      agent = new mod.Agent({ keepAlive: true, maxSockets, ...(ca ? { ca } : {}) });
      this.agents.set(pool, agent);
    }
    const { method, headers, signal } = req;
    return this.send(mod.request(req.url, { method, headers, agent, signal }), req);
  }

  /** The request through the proxy (src/api/via-proxy.ts, loaded the first time a proxy is used). */
  private async viaProxy(req: TransportRequest, proxy: ProxyChoice): Promise<TransportResponse> {
    const { ProxyRoute } = await import('./via-proxy.js');
    let route = this.proxies.get(proxy.url.href);
    if (!route) {
      route = new ProxyRoute(proxy, { connectTimeoutMs: this.opts.connectTimeoutMs, ca: this.trusted() });
      this.proxies.set(proxy.url.href, route);
    }
    this.opts.debug?.(`* through the proxy ${redactProxy(proxy.url)} (from ${proxy.from})`);
    const r = route.request(req);
    return this.send(r, req, (err) => route.problem(err, r));
  }

  /** A request on its way: its body sent, its connecting timed, its answer or its error. */
  private send(r: ClientRequest, req: TransportRequest, problem = (e: unknown): unknown => e) {
    return new Promise<TransportResponse>((resolve, reject) => {
      r.once('response', (res) => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res }));
      r.once('error', (err) => reject(problem(err)));
      r.once('socket', (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(
          () => r.destroy(Object.assign(new Error('timed out connecting'), { code: 'UND_ERR_CONNECT_TIMEOUT' })),
          this.opts.connectTimeoutMs,
        );
        timer.unref();
        socket.once('connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      });
      const body = req.body;
      if (body === undefined) r.end();
      else if (typeof body === 'string' || body instanceof Uint8Array) r.end(body);
      else
        Readable.from(body)
          .on('error', (err) => r.destroy(err))
          .pipe(r);
    });
  }

  /** The certificates to trust when a profile names a CA file: the system's (and NODE_EXTRA_CA_CERTS) and its. */
  private trusted(): string[] | undefined {
    if (this.ca !== null) return this.ca;
    if (!this.opts.caFile) return (this.ca = undefined);
    const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
    let pem: string;
    try {
      pem = fs.readFileSync(this.opts.caFile, 'utf8');
    } catch (err) {
      throw new ClientSettingError(
        `cannot read the CA file ${this.opts.caFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        'Fix the path with `orc profile add <name> --ca-file <pem>`.',
      );
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----'))
      throw new ClientSettingError(`the CA file ${this.opts.caFile} holds no PEM certificate`);
    return (this.ca = certificatesWith(pem));
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
    for (const route of this.proxies.values()) route.close();
    this.proxies.clear();
  }
}
