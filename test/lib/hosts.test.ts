// What `--host` may be (src/lib/hosts.ts): an IP address, bracketed IPv6 as a URL writes it, or a host name.
import { hostname, type NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isLinkLocal, listenHost, urlHost } from '../../src/lib/hosts.js';

describe('listenHost', () => {
  it('takes addresses and names as given, and an IPv6 address in brackets without them', () => {
    for (const h of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'build-01.example.com', 'fd00::2'])
      expect(listenHost(h), h).toBe(h);
    expect(listenHost('[::1]')).toBe('::1');
    expect(listenHost('[::]')).toBe('::');
  });

  it('refuses what is not a host', () => {
    for (const h of ['bad host!', '', '[localhost]', '[127.0.0.1]', 'a..b', '-x', 'host:80', '[::1', 'é.example'])
      expect(listenHost(h), h).toBeNull();
  });

  it('writes an address in a URL as given, IPv6 in brackets', () => {
    expect(urlHost('::1')).toBe('[::1]');
    expect(urlHost('192.0.2.7')).toBe('192.0.2.7');
    expect(urlHost('build-01.example.com')).toBe('build-01.example.com');
  });

  it('writes a listener on every interface by an external address: IPv4 first, IPv6 but link-local next', () => {
    const lo = [addr('127.0.0.1', 'IPv4', true), addr('::1', 'IPv6', true)];
    const eth0 = [addr('fe80::fc:ff:fe00:1', 'IPv6'), addr('fd00::2', 'IPv6'), addr('198.51.100.4', 'IPv4')];
    for (const listen of ['0.0.0.0', '::']) {
      expect(urlHost(listen, { lo, eth0 })).toBe('198.51.100.4');
      expect(urlHost(listen, { lo, eth0: eth0.slice(0, 2) })).toBe('[fd00::2]');
    }
  });

  it('writes it by the host name only when the machine has no such address (no name resolution otherwise)', () => {
    const lo = [addr('127.0.0.1', 'IPv4', true)];
    expect(urlHost('0.0.0.0', { lo, eth0: [addr('fe80::1', 'IPv6')] })).toBe(hostname());
    expect(urlHost('::', {})).toBe(hostname());
  });
});

describe('isLinkLocal', () => {
  it('is fe80::/10, with or without a zone id, in either case', () => {
    for (const a of ['fe80::1', 'fe80::fc:ff:fe00:1%eth0', 'FE80::1', 'febf:ffff::1', 'fe9a::2'])
      expect(isLinkLocal(a), a).toBe(true);
  });

  it('is not another IPv6 address, an IPv4 address or a name', () => {
    for (const a of ['fec0::1', 'fe7f::1', 'fd00::2', '::1', 'fe8::1', '2001:db8::fe80', '169.254.1.1', 'fe80.example'])
      expect(isLinkLocal(a), a).toBe(false);
  });
});

/** An interface's address as os.networkInterfaces() gives it (the fields urlHost reads, and the rest plausible). */
function addr(address: string, family: 'IPv4' | 'IPv6', internal = false): NetworkInterfaceInfo {
  const common = { address, internal, mac: '02:00:00:00:00:01', cidr: null };
  return family === 'IPv4'
    ? { ...common, family, netmask: '255.255.255.0' }
    : { ...common, family, netmask: 'ffff:ffff:ffff:ffff::', scopeid: 0 };
}
