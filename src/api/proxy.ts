// Which proxy a request goes through, from the environment as curl and undici read it: `https_proxy` for
// https, `http_proxy` for http (and for https when no https one is set), the lowercase name before the
// uppercase one, `no_proxy` naming the hosts that go direct (`*` for all; `example.com` and `.example.com`
// also cover its subdomains, a trailing dot or not; `host:port` only that port; `10.0.0.0/8` an IP range).
// One rule of orc's own on top: a request to this
// machine (its sandbox) goes through a proxy only if the proxy is on this machine too. A proxy elsewhere
// would connect to its own loopback, not ours, and a plain-http request (orc's only to this machine) would
// carry the key across the network in clear. (gh and the Stripe CLI, in Go, never proxy loopback at all;
// this lets a local debugging proxy see the sandbox's traffic.) An https request travels in a CONNECT
// tunnel: the proxy sees the host name, never the key.
import { isLoopbackHost } from '../contract/keys.js';
import { ClientSettingError } from './errors.js';

export interface ProxyChoice {
  /** The proxy's URL, credentials and all (for the agent; never printed). */
  url: URL;
  /** The variable it came from. */
  from: string;
}

const pick = (env: NodeJS.ProcessEnv, name: string): [string, string] | null => {
  for (const n of [name.toLowerCase(), name.toUpperCase()]) {
    const v = env[n]?.trim();
    if (v) return [v, n];
  }
  return null;
};

/** True when any proxy variable is set: only then is the proxy route (via-proxy.ts) loaded. */
export function proxyConfigured(env: NodeJS.ProcessEnv): boolean {
  return pick(env, 'https_proxy') !== null || pick(env, 'http_proxy') !== null;
}

/** The proxy for a request to `target`, or null to go direct. A proxy variable that is not a URL is exit 4. */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv): ProxyChoice | null {
  const set = (target.protocol === 'https:' ? pick(env, 'https_proxy') : null) ?? pick(env, 'http_proxy');
  if (!set) return null;
  if (bypassed(target, pick(env, 'no_proxy')?.[0] ?? '')) return null;
  const [raw, from] = set;
  let url: URL;
  try {
    // `proxy.example.com:3128`, as curl takes it, is http://proxy.example.com:3128.
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new ClientSettingError(
      `${from} is not a proxy URL: ${JSON.stringify(redactProxy(raw))}`,
      `Set it to http://host:port (or https://host:port), or unset it.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ClientSettingError(
      `${from}: orc speaks to http and https proxies, not ${url.protocol}//`,
      'Set it to http://host:port (or https://host:port), or unset it.',
    );
  // This machine is reached through a proxy only on this machine: one elsewhere would reach its own
  // loopback, not ours; and plain http (orc's only to this machine) would carry the key across in clear.
  if (isLoopbackHost(target.hostname) && !isLoopbackHost(url.hostname)) return null;
  return { url, from };
}

/** True when `no_proxy` sends this target direct. */
export function bypassed(target: URL, noProxy: string): boolean {
  // A fully qualified name (`example.com.`) is the same host as without its dot, on either side.
  const host = target.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const entry of noProxy.split(/[\s,]+/).filter(Boolean)) {
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (inRange(host, entry)) return true;
      continue;
    }
    const [name, onlyPort] = splitHostPort(entry.toLowerCase());
    if (onlyPort && onlyPort !== port) continue;
    const bare = name.replace(/^\*?\./, '').replace(/\.$/, '');
    if (host === bare || host.endsWith(`.${bare}`)) return true;
  }
  return false;
}

/** True when `host` is an IP address inside `cidr` (`10.0.0.0/8`, `fd00::/8`), as curl and Go read one. */
function inRange(host: string, cidr: string): boolean {
  const net = process.getBuiltinModule('node:net') as typeof import('node:net');
  const [address = '', bits = ''] = cidr.split('/');
  const kind = net.isIP(address);
  const prefix = Number(bits);
  if (kind === 0 || net.isIP(host) !== kind || !/^\d+$/.test(bits) || prefix > (kind === 4 ? 32 : 128)) return false;
  const family = kind === 4 ? 'ipv4' : 'ipv6';
  const list = new net.BlockList();
  list.addSubnet(address, prefix, family);
  return list.check(host, family);
}

/** `host`, `host:port`, `[v6]:port` or a bare IPv6 address, as host and port (if any). */
function splitHostPort(entry: string): [string, string | undefined] {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return [bracketed[1]!, bracketed[2]];
  if (entry.indexOf(':') !== entry.lastIndexOf(':')) return [entry, undefined];
  const at = entry.lastIndexOf(':');
  return at < 0 ? [entry, undefined] : [entry.slice(0, at), entry.slice(at + 1)];
}

/** A proxy URL as it may be shown: without its password. */
export function redactProxy(raw: string | URL): string {
  try {
    const url = new URL(String(raw));
    if (!url.password) return url.href.replace(/\/$/, '');
    url.password = 'PASSWORD'; // (a URL percent-encodes what it is given: the mark goes in after)
    return url.href.replace(/\/$/, '').replace(':PASSWORD@', ':…@');
  } catch {
    return String(raw).replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:…@');
  }
}
