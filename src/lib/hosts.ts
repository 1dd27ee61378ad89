// The Host names a server of orc's answers to (the sandbox, its console, `orc mcp --http`): a DNS-rebinding page,
// or anything reaching it by a name that is not its own, is refused before any key or cookie is looked at.
import { X509Certificate } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

/** A test of a Host header: one of loopback's names, the host the sandbox listens on, the names of its
 * certificate (--tls), or, listening on every interface, this machine's name and addresses; with its port. */
export function ownHosts(
  listen: string,
  port: () => number,
  cert?: string,
): (host: string | undefined, anyPort?: boolean) => boolean {
  const names = new Set(LOOPBACK);
  for (const n of isWildcard(listen) ? machineNames() : [listen]) names.add(n);
  if (cert) for (const n of certNames(cert)) names.add(n);
  const allowed = new Set([...names].map((n) => (n.includes(':') ? `[${n}]` : n).toLowerCase()));
  return (host, anyPort = false) => {
    if (!host) return false;
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(host.toLowerCase());
    return m !== null && (anyPort || Number(m[2]) === port()) && allowed.has(m[1]!);
  };
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;
const NAME = /^(?=.{1,253}$)[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?(?:\.[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?)*\.?$/i;

/** A host to listen on as given (`[::1]` as a URL writes an IPv6 address: ::1), or null when it is neither an
 * IP address nor a host name. */
export function listenHost(given: string): string | null {
  const host = /^\[(.*)\]$/.exec(given)?.[1] ?? given;
  // (the URL parser as the judge of an IPv6 address: this folder opens no socket, so no node:net)
  if (host.includes(':')) return URL.canParse(`http://[${host}]/`) ? host : null;
  return host === given && (IPV4.test(host) || NAME.test(host)) ? host : null;
}

/** 0.0.0.0 or ::, a listener on every interface. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** What a listener on every interface answers to beyond loopback: this machine's name and its addresses. */
export function machineNames(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return [hostname(), ...addresses];
}

/** An IPv6 link-local address (fe80::/10, its first group fe80 to febf), with or without a zone id: no name for a
 * certificate, as it changes with the interface and is reached only through one. */
export function isLinkLocal(address: string): boolean {
  return /^fe[89ab][\da-f]:/i.test(address);
}

/** The host of a URL to a server listening on `listen`, an IPv6 address in brackets. For every interface (0.0.0.0
 * is no address to send to), this machine's first external IPv4 address, else its first external IPv6 one but
 * link-local: an address needs no name resolution, and the Host check and a certificate know it; the host name
 * only when it has neither. */
export function urlHost(listen: string, interfaces = networkInterfaces()): string {
  if (!isWildcard(listen)) return listen.includes(':') ? `[${listen}]` : listen;
  const external = Object.values(interfaces).flatMap((list) => (list ?? []).filter((a) => !a.internal));
  const v4 = external.find((a) => a.family === 'IPv4');
  if (v4) return v4.address;
  const v6 = external.find((a) => a.family === 'IPv6' && !isLinkLocal(a.address));
  return v6 ? `[${v6.address}]` : hostname();
}

function certNames(cert: string): string[] {
  const alt = new X509Certificate(cert).subjectAltName ?? '';
  return alt
    .split(', ')
    .map((e) => e.replace(/^(DNS|IP Address):/, ''))
    .filter(Boolean);
}
