// Requests through a forward proxy on Node's own http clients, as curl sends them: plain http in absolute form
// (`GET http://host:port/path`, which a stock proxy that allows CONNECT only to 443 still carries), https in a
// CONNECT tunnel with TLS end to end (the proxy sees the host name, never the key). Every way the proxy
// itself fails (refused, closed, silent, not HTTP, anything but 200 to CONNECT) is one error, code ORC_PROXY,
// which the exchange does not retry: undici's ProxyAgent, used before, reconnected without end (and without
// yielding to a signal) to a proxy that closed the CONNECT unanswered.
import type { Agent, ClientRequest, ClientRequestArgs, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { redactProxy, type ProxyChoice } from './proxy.js';
import { MAX_SOCKETS } from './transport.js';

type Http = typeof import('node:http');
type Tls = typeof import('node:tls');

export interface ProxiedRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  /** An event stream: on connections of its own, uncapped (transport.ts, longLived). */
  longLived?: boolean;
}

export interface RouteOptions {
  connectTimeoutMs: number;
  /** Certificates to trust (for an https proxy and for the service), instead of Node's default list. */
  ca?: string[] | undefined;
}

/** The way through one proxy: a keep-alive agent for plain http (to the proxy) and one for https (tunnels). */
export class ProxyRoute {
  /** Plain and tunnel agents, each for requests (capped) and for event streams (uncapped). */
  private readonly agents = new Map<string, Agent>();
  private readonly where: string;

  constructor(
    private readonly proxy: ProxyChoice,
    private readonly opts: RouteOptions,
  ) {
    this.where = `the proxy ${redactProxy(proxy.url)} (from ${proxy.from})`;
  }

  request(req: ProxiedRequest): ClientRequest {
    const https = builtin<Http>('node:https');
    const maxSockets = req.longLived ? Infinity : MAX_SOCKETS;
    if (req.url.protocol === 'https:') {
      const agent = this.agent(`tunnel:${maxSockets}`, () => this.tunnelAgent(maxSockets));
      const { method, headers, signal } = req;
      return https.request(req.url, { method, headers, agent, signal });
    }
    const mod = this.proxy.url.protocol === 'https:' ? https : builtin<Http>('node:http');
    const ca = this.opts.ca ? { ca: this.opts.ca } : {};
    const agent = this.agent(`plain:${maxSockets}`, () => new mod.Agent({ keepAlive: true, maxSockets, ...ca }));
    return mod.request({
      ...this.proxyAddress(),
      path: req.url.href,
      method: req.method,
      headers: { ...req.headers, host: req.url.host, ...this.credentials() },
      agent,
      signal: req.signal,
    });
  }

  /** An error of a request through this proxy, as orc says it when the proxy is the one that failed. */
  problem(err: unknown, req: ClientRequest): unknown {
    const e = err as NodeJS.ErrnoException;
    if (e?.code === 'ORC_PROXY') return err;
    if (e?.code === 'ECONNREFUSED') return proxyError(`${this.where} refused the connection`);
    if (e?.code?.startsWith('HPE_')) return proxyError(`${this.where} answered something that is not HTTP`);
    // A kept-alive connection the proxy closed in the meantime is the network's, retried like any.
    if (e?.code === 'ECONNRESET' && !req.reusedSocket)
      return proxyError(`${this.where} closed the connection without an answer`);
    return err;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
  }

  private agent(key: string, make: () => Agent): Agent {
    let agent = this.agents.get(key);
    if (!agent) this.agents.set(key, (agent = make()));
    return agent;
  }

  private proxyAddress(): { host: string; port: number } {
    const u = this.proxy.url;
    return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) || (u.protocol === 'https:' ? 443 : 80) };
  }

  private credentials(): Record<string, string> {
    const u = this.proxy.url;
    if (!u.username) return {};
    const pair = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    return { 'proxy-authorization': `Basic ${Buffer.from(pair).toString('base64')}` };
  }

  /** An https agent whose connections are CONNECT tunnels through the proxy, TLS to the service inside. */
  private tunnelAgent(maxSockets: number): Agent {
    const https = builtin<Http>('node:https');
    const tls = builtin<Tls>('node:tls');
    const open = (host: string, port: number) => this.tunnel(host, port);
    class TunnelAgent extends (https.Agent as unknown as new (o: object) => Agent) {
      // Node's agent takes the socket from this callback when it is not returned.
      override createConnection(options: ClientRequestArgs, done?: (err: Error | null, s: Duplex) => void): undefined {
        const { host, port } = options as { host: string; port: number };
        open(host, port).then(
          (socket) => done?.(null, tls.connect({ ...(options as object), socket })),
          (err: Error) => done?.(err, undefined as never),
        );
        return undefined;
      }
    }
    return new TunnelAgent({ keepAlive: true, maxSockets, ...(this.opts.ca ? { ca: this.opts.ca } : {}) });
  }

  /** A socket to host:port through the proxy (CONNECT answered 200), or the proxy's failure. */
  private tunnel(host: string, port: number): Promise<Socket> {
    const mod = this.proxy.url.protocol === 'https:' ? builtin<Http>('node:https') : builtin<Http>('node:http');
    const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    return new Promise<Socket>((resolve, reject) => {
      const headers = { host: authority, ...this.credentials() };
      const ca = this.opts.ca ? { ca: this.opts.ca } : {};
      const where = this.proxyAddress();
      const r = mod.request({ ...where, method: 'CONNECT', path: authority, headers, agent: false, ...ca });
      const waited = `${Math.round(this.opts.connectTimeoutMs / 1000)} s`;
      const asked = `when asked to connect to ${authority}`;
      const silent = () => r.destroy(proxyError(`${this.where} did not answer within ${waited} ${asked}`));
      const timer = setTimeout(silent, this.opts.connectTimeoutMs);
      timer.unref();
      r.once('connect', (res: IncomingMessage, socket: Socket, head: Buffer) => {
        clearTimeout(timer);
        if (res.statusCode === 200 && head.length === 0) return resolve(socket);
        socket.destroy();
        reject(proxyError(`${this.where} answered ${res.statusCode} ${asked}`));
      });
      r.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (err.code === 'ECONNRESET') reject(proxyError(`${this.where} closed the connection ${asked}`));
        else if (err.code?.startsWith('HPE_')) reject(proxyError(`${this.where} answered something not HTTP ${asked}`));
        else reject(this.problem(err, r));
      });
      r.end();
    });
  }
}

function proxyError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ORC_PROXY' });
}

const builtin = <T>(name: string): T => process.getBuiltinModule(name) as T;
