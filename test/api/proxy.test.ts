// Which requests go through which proxy: the variables as curl and undici read them, NO_PROXY's forms, and
// orc's rule that a plain-http request (the key in clear) only goes through a proxy on this machine.
import { describe, expect, it } from 'vitest';
import { bypassed, proxyFor, redactProxy } from '../../src/api/proxy.js';
import { EXIT, exitCodeOf } from '../../src/exit/errors.js';

const u = (s: string) => new URL(s);

describe('proxyFor', () => {
  it('takes https_proxy for https and http_proxy for http, lowercase before uppercase', () => {
    const env = { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2', HTTP_PROXY: 'http://127.0.0.1:3' };
    expect(proxyFor(u('https://api.example.com'), env)).toMatchObject({
      from: 'https_proxy',
      url: u('http://lower:1'),
    });
    expect(proxyFor(u('http://127.0.0.1:4010'), env)).toMatchObject({
      from: 'HTTP_PROXY',
      url: u('http://127.0.0.1:3'),
    });
  });

  it('falls back to http_proxy for https when no https one is set; with neither, goes direct', () => {
    expect(proxyFor(u('https://api.example.com'), { HTTP_PROXY: 'proxy.corp:3128' })).toMatchObject({
      from: 'HTTP_PROXY',
      url: u('http://proxy.corp:3128'),
    });
    expect(proxyFor(u('https://api.example.com'), {})).toBeNull();
    expect(proxyFor(u('http://127.0.0.1:4010'), { HTTPS_PROXY: 'http://127.0.0.1:3' })).toBeNull();
  });

  it('never sends a request for this machine to a proxy on another machine', () => {
    expect(proxyFor(u('http://127.0.0.1:4010'), { HTTP_PROXY: 'http://proxy.corp:3128' })).toBeNull();
    expect(proxyFor(u('https://localhost:4010'), { HTTPS_PROXY: 'http://proxy.corp:3128' })).toBeNull();
    expect(proxyFor(u('https://api.example.com'), { HTTPS_PROXY: 'http://proxy.corp:3128' })).not.toBeNull();
    expect(proxyFor(u('http://localhost:4010'), { HTTP_PROXY: 'http://localhost:8888' })).not.toBeNull();
  });

  it('refuses a variable that is not an http(s) proxy URL with exit 4, naming it, its password hidden', () => {
    const err = (() => {
      try {
        proxyFor(u('https://a.example'), { HTTPS_PROXY: 'http://u:pw@[x' });
      } catch (e) {
        return e;
      }
    })();
    expect(exitCodeOf(err)).toBe(EXIT.auth); // the api's own problem, which the one exit-code map makes 4
    expect(() => proxyFor(u('https://a.example'), { HTTPS_PROXY: 'http://u:pw@[x' })).toThrow(
      /^HTTPS_PROXY is not a proxy URL: "http:\/\/u:…@\[x"$/,
    );
    expect(() => proxyFor(u('https://a.example'), { HTTPS_PROXY: 'socks5://127.0.0.1:1080' })).toThrow(/not socks5:/);
  });
});

describe('NO_PROXY', () => {
  it.each([
    ['*', 'https://api.example.com', true],
    ['example.com', 'https://api.example.com', true],
    ['.example.com', 'https://example.com', true],
    ['*.example.com', 'https://api.example.com', true],
    ['example.com', 'https://notexample.com', false],
    ['api.example.com:8443', 'https://api.example.com:8443', true],
    ['api.example.com:8443', 'https://api.example.com', false],
    ['127.0.0.1', 'http://127.0.0.1:4010', true],
    ['localhost, 10.0.0.1', 'http://localhost:4010', true],
    ['::1', 'http://[::1]:4010', true],
    ['[::1]:4010', 'http://[::1]:4010', true],
    ['', 'https://api.example.com', false],
    // CIDR ranges and trailing dots, as curl and Go read them
    ['10.0.0.0/8', 'http://10.1.2.3:4010', true],
    ['10.0.0.0/8', 'https://11.0.0.1', false],
    ['localhost,192.168.1.0/24', 'https://192.168.1.77', true],
    ['192.168.1.0/24', 'https://192.168.2.1', false],
    ['127.0.0.0/8', 'http://127.0.0.1:4010', true],
    ['fd00::/8', 'https://[fd12::1]', true],
    ['fd00::/8', 'https://[fe80::1]', false],
    ['::1/128', 'http://[::1]:4010', true],
    ['10.0.0.0/8', 'https://10.example.com', false],
    ['example.com.', 'https://api.example.com', true],
    ['example.com', 'https://api.example.com.', true],
    ['.example.com.', 'https://example.com.', true],
  ])('%j for %s: %s', (noProxy, target, expected) => {
    expect(bypassed(u(target), noProxy)).toBe(expected);
  });

  it('sends a bypassed host direct even with a proxy set', () => {
    expect(proxyFor(u('https://api.example.com'), { HTTPS_PROXY: 'http://p:1', no_proxy: '.example.com' })).toBeNull();
  });
});

it('shows a proxy without its password', () => {
  expect(redactProxy('http://me:secret@proxy.corp:3128')).toBe('http://me:…@proxy.corp:3128');
  expect(redactProxy(u('http://proxy.corp:3128'))).toBe('http://proxy.corp:3128');
});
