// The transport under the one exchange: Node's own http and https clients, with keep-alive agents; a
// download's GET is read straight off the socket instead (wire.ts).
// Measured against undici's Agent (bundled, with its llhttp wasm) on this kind of machine, node:http
// answers a whole `orc run get` sooner and needs no dependency; https loads only for https. The modules
// come from process.getBuiltinModule, not `import`: an ESM import of node:http enumerates its exports,
// whose lazy WebSocket getters load Node's internal undici (~13 ms at every command).
//
// Through a proxy (HTTPS_PROXY and the like, src/api/proxy.ts), requests go by undici's ProxyAgent, which
// tunnels https with CONNECT; undici is loaded only then, so a command without a proxy never pays for it.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Agent } from 'node:http';
import { Readable } from 'node:stream';
import { ConfigError } from '../errors.js';
import { cjs } from '../interop.js';
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
}

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

type ProxyAgent = import('undici').ProxyAgent;

export class Transport {
  private readonly agents = new Map<string, Agent>();
  private readonly proxies = new Map<string, ProxyAgent>();
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
      return import('./wire.js').then(({ wireGet }) => wireGet({ url, headers, signal, connectTimeoutMs: this.opts.connectTimeoutMs, ca: https ? this.trusted() : undefined })) as unknown as Promise<TransportResponse>;
    }
    const mod = (https ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http')) as typeof import('node:http');
    let agent = this.agents.get(req.url.protocol);
    if (!agent) {
      const ca = https ? this.trusted() : undefined;
      agent = new mod.Agent({ keepAlive: true, maxSockets: 16, ...(ca ? { ca } : {}) });
      this.agents.set(req.url.protocol, agent);
    }
    return new Promise<TransportResponse>((resolve, reject) => {
      const r = mod.request(req.url, { method: req.method, headers: req.headers, agent, signal: req.signal });
      r.once('response', (res) => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res }));
      r.once('error', reject);
      r.once('socket', (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(() => r.destroy(Object.assign(new Error('timed out connecting'), { code: 'UND_ERR_CONNECT_TIMEOUT' })), this.opts.connectTimeoutMs);
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

  /** The request through the proxy, by undici (loaded now, the first time). */
  private async viaProxy(req: TransportRequest, proxy: ProxyChoice): Promise<TransportResponse> {
    const undici = cjs(await import('undici'));
    let agent = this.proxies.get(proxy.url.href);
    if (!agent) {
      const ca = this.trusted();
      const tls = { timeout: this.opts.connectTimeoutMs, ...(ca ? { ca } : {}) };
      // orc's own timers decide when an answer is too slow (http.ts): none of undici's.
      agent = new undici.ProxyAgent({ uri: proxy.url.href, requestTls: tls, proxyTls: tls, headersTimeout: 0, bodyTimeout: 0 });
      this.proxies.set(proxy.url.href, agent);
    }
    this.opts.debug?.(`* through the proxy ${redactProxy(proxy.url)} (from ${proxy.from})`);
    try {
      const res = await undici.request(req.url, { method: req.method as 'GET', headers: req.headers, body: req.body === undefined || typeof req.body === 'string' || req.body instanceof Uint8Array ? (req.body ?? null) : Readable.from(req.body), signal: req.signal, dispatcher: agent });
      return { statusCode: res.statusCode, headers: res.headers as IncomingHttpHeaders, body: res.body as unknown as IncomingMessage };
    } catch (err) {
      throw proxyProblem(err, proxy, req.url);
    }
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
      throw new ConfigError(`cannot read the CA file ${this.opts.caFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'Fix the path with `orc profile add <name> --ca-file <pem>`.');
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`the CA file ${this.opts.caFile} holds no PEM certificate`);
    return (this.ca = certificatesWith(pem));
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
    for (const agent of this.proxies.values()) void agent.destroy();
    this.proxies.clear();
  }
}

/** undici's words for a proxy that would not carry the request, as orc says them (code ORC_PROXY). */
function proxyProblem(err: unknown, proxy: ProxyChoice, target: URL): unknown {
  const e = err as NodeJS.ErrnoException & { port?: number };
  const where = `the proxy ${redactProxy(proxy.url)} (from ${proxy.from})`;
  const status = /Proxy response \((\d+)\)/.exec(e?.message ?? '')?.[1];
  if (status) return Object.assign(new Error(`${where} answered ${status} when asked to connect to ${target.host}`), { code: 'ORC_PROXY' });
  const proxyPort = proxy.url.port || (proxy.url.protocol === 'https:' ? '443' : '80');
  if (e?.code === 'ECONNREFUSED' && String(e.port) === proxyPort) return Object.assign(new Error(`${where} refused the connection`), { code: 'ORC_PROXY' });
  return err;
}
