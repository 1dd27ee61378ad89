// What `--host` may be (src/lib/hosts.ts): an IP address, bracketed IPv6 as a URL writes it, or a host name.
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

  it('writes a listener on every interface by the machine name in a URL, IPv6 in brackets', () => {
    expect(urlHost('::1')).toBe('[::1]');
    expect(urlHost('0.0.0.0')).not.toMatch(/^0\.0\.0\.0$|:/);
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
