// orc behind a real forward proxy (Debian's tinyproxy): API calls, the event stream and a resumed download
// go through it, over http to the sandbox and over https (CONNECT, then TLS to a certificate orc trusts
// through NODE_EXTRA_CA_CERTS); NO_PROXY sends loopback direct; a proxy elsewhere never carries a plain-http
// request (the key would cross the network in clear); a proxy that refuses is one line, not a retry loop.
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxTls } from '../../src/sandbox/tls.js';
import { orc } from '../helpers/cli.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { driveToEnd, quickClock, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startTinyproxy, type Tinyproxy } from '../helpers/tinyproxy.js';
import { needTool } from '../helpers/tools.js';
import { until } from '../helpers/until.js';

const withProxy = needTool('tinyproxy', 'the proxy tests');
const idea = ['--pitch', 'A habit tracker for runners', '--audience', 'runners', '--monetization', 'freemium'];

describe.runIf(withProxy)('through a forward proxy', () => {
  let proxy: Tinyproxy;
  let sb: TestSandbox;
  let faults: FaultProxy;
  let finished: string;
  beforeAll(async () => {
    proxy = await startTinyproxy();
    sb = await startTestSandbox({ stageMs: 20, ipaMib: 8, clock: quickClock() });
    faults = await startFaultProxy(sb.url);
    finished = (await sb.createRun('A habit tracker for runners')).id;
    await driveToEnd(sb, finished);
    await sb.artifactsReady(finished);
  }, 60_000);
  afterAll(async () => {
    proxy?.close();
    await faults?.close();
    await sb?.close();
  });

  const port = (url: string) => new URL(url).port;
  // https goes by CONNECT host:port; plain http as curl sends it, in absolute form (GET http://host:port/…).
  const tunnelsTo = (url: string) =>
    proxy.carried().filter((c) => c.startsWith('CONNECT') && c.endsWith(`:${port(url)}`)).length;
  const carriedTo = (url: string) => proxy.carried().filter((c) => c.includes(`http://127.0.0.1:${port(url)}/`)).length;

  it('carries a run from create to accepted: the API calls and the event stream', async () => {
    const before = carriedTo(sb.url);
    const r = await orc(['run', 'create', ...idea, '--watch', '--approve', 'idea,brand,final', '--json', '--debug'], {
      env: { ORC_BASE_URL: sb.url, HTTP_PROXY: proxy.url },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.at(-1).type).toBe('run.accepted');
    expect(r.stderr).toContain(`* through the proxy ${proxy.url} (from HTTP_PROXY)`);
    expect(r.stderr).toMatch(/> GET \S+\/v1\/runs\/run_\S+\/events/); // the event stream, through the same proxy
    expect(carriedTo(sb.url)).toBeGreaterThan(before);
    expect(tunnelsTo(sb.url)).toBe(0);
  }, 60_000);

  it('NO_PROXY=127.0.0.1 sends loopback direct: the proxy carries nothing', async () => {
    const before = proxy.carried().length;
    const r = await orc(['run', 'get', finished, '--json', '--debug'], {
      env: { ORC_BASE_URL: sb.url, HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('accepted');
    expect(r.stderr).not.toContain('through the proxy');
    expect(proxy.carried().length).toBe(before);
  });

  it('a proxy on another host never carries a plain-http request: it goes direct', async () => {
    // 192.0.2.1 is TEST-NET-1: were orc to use it, the request would hang, then fail.
    const r = await orc(['run', 'get', finished, '--json', '--debug', '--timeout', '10'], {
      env: { ORC_BASE_URL: sb.url, HTTP_PROXY: 'http://192.0.2.1:3128' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('through the proxy');
  });

  it('a download cut off is resumed through the proxy, from where it stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-pull-proxy-'));
    const part = join(dir, '.orc-partial', 'ipa', 'HabitTracker.ipa');
    const env = { ORC_BASE_URL: faults.url, HTTP_PROXY: proxy.url };
    faults.plan = (req) =>
      req.url.startsWith('/files/') ? { kind: 'cut-body', afterBytes: 1_000_000, stall: true } : { kind: 'pass' };
    const first = orc(['artifacts', 'pull', finished, 'ipa', '--dir', dir], { env });
    await until(() => existsSync(part) && statSync(part).size === 1_000_000, 'the first 1 MB on disk');
    first.kill('SIGINT');
    expect((await first).exitCode).toBe(130);
    faults.plan = () => ({ kind: 'pass' });
    faults.seen.length = 0;
    const before = carriedTo(faults.url);
    const again = await orc(['artifacts', 'pull', finished, 'ipa', '--dir', dir, '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    const file = JSON.parse(again.stdout).files[0];
    expect(file.state).toBe('resumed');
    expect(faults.seen.filter((s) => s.url.startsWith('/files/')).map((s) => s.headers.range)).toEqual([
      'bytes=1000000-',
    ]);
    expect(carriedTo(faults.url)).toBeGreaterThan(before);
    expect(statSync(file.path).size).toBe(file.size); // and its sha256 checked, or the pull would have failed
  }, 60_000);

  it('a stock proxy that allows CONNECT only to 443 carries a plain-http request, sent in absolute form', async () => {
    const stock = await startTinyproxy({ connectPorts: [443] });
    try {
      const r = await orc(['run', 'get', finished, '--json'], { env: { ORC_BASE_URL: sb.url, HTTP_PROXY: stock.url } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).status).toBe('accepted');
      expect(stock.carried()).toContain(`GET ${sb.url}/v1/runs/${finished}`);
    } finally {
      stock.close();
    }
  });

  it('a proxy that refuses the connection is one line naming it and its variable, exit 1, no retry loop', async () => {
    const r = await orc(['run', 'get', finished], { env: { ORC_BASE_URL: sb.url, HTTP_PROXY: 'http://127.0.0.1:1' } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('the proxy http://127.0.0.1:1 (from HTTP_PROXY) refused the connection');
    expect(r.stderr).not.toContain('retrying');
  });

  it('a proxy variable that is not a URL is exit 4 naming the variable, and its password is never printed', async () => {
    const r = await orc(['run', 'get', finished], {
      env: { ORC_BASE_URL: sb.url, HTTP_PROXY: 'http://user:s3cret@[bad' },
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('HTTP_PROXY is not a proxy URL');
    expect(r.stderr).not.toContain('s3cret');
  });

  describe('to an https service', () => {
    let tlsSb: TestSandbox;
    let ca: string;
    beforeAll(async () => {
      const tls = sandboxTls(mkdtempSync(join(tmpdir(), 'orc-tls-')), [], Date.now());
      ca = tls.caFile;
      tlsSb = await startTestSandbox({ stageMs: 20, clock: quickClock(), tls });
    });
    afterAll(async () => {
      await tlsSb?.close();
    });

    it('tunnels with CONNECT, and TLS goes end to end through it (the CA from NODE_EXTRA_CA_CERTS)', async () => {
      expect(tlsSb.url).toMatch(/^https:/);
      const before = tunnelsTo(tlsSb.url);
      const r = await orc(['run', 'create', ...idea, '--json', '--debug'], {
        env: { ORC_BASE_URL: tlsSb.url, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: ca },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).id).toMatch(/^run_/);
      expect(r.stderr).toContain('(from HTTPS_PROXY)');
      expect(tunnelsTo(tlsSb.url)).toBeGreaterThan(before);
    });

    it('a certificate orc does not trust, through the proxy, is exit 4 naming the host, at once', async () => {
      const r = await orc(['run', 'list'], { env: { ORC_BASE_URL: tlsSb.url, HTTPS_PROXY: proxy.url } });
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toContain(`the certificate of ${new URL(tlsSb.url).host} is not trusted`);
      expect(r.stderr).toContain('NODE_EXTRA_CA_CERTS');
      expect(r.stderr).not.toContain('retrying');
    });
  });
});

// A proxy that fails in every way a broken one can: CONNECT closed unanswered, anything else answered with
// a bare body (no status line). orc says so in one line, exit 1, at a handful of connections, not thousands.
describe('through a hostile proxy', () => {
  let hostile: { url: string; connections: () => number; close: () => Promise<void> };
  beforeAll(async () => {
    hostile = await startHostileProxy((socket, head) =>
      head.startsWith('CONNECT') ? socket.destroy() : socket.end('bare'),
    );
  });
  afterAll(() => hostile?.close());

  for (const [scheme, variable] of [
    ['http', 'HTTP_PROXY'],
    ['https', 'HTTPS_PROXY'],
  ] as const)
    it(`a ${scheme} service: one line, exit 1, no loop (run list and artifacts pull)`, async () => {
      const base = `${scheme}://127.0.0.1:9`;
      for (const args of [
        ['run', 'list'],
        ['artifacts', 'pull', 'run_x', '--dir', mkdtempSync(join(tmpdir(), 'orc-hostile-'))],
      ]) {
        const before = hostile.connections();
        const r = await orc(args, {
          env: { ORC_BASE_URL: base, ORC_API_KEY: 'sk_test_hostile', [variable]: hostile.url },
          timeout: 20_000,
        });
        expect(r.exitCode, r.stderr).toBe(1);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toContain(`the proxy ${hostile.url} (from ${variable})`);
        expect(hostile.connections() - before).toBeLessThanOrEqual(5);
      }
    }, 60_000);

  it('a signal ends orc while the proxy holds the request unanswered', async () => {
    const silent = await startHostileProxy(() => {});
    try {
      for (const [signal, code] of [
        ['SIGINT', 130],
        ['SIGTERM', 143],
      ] as const) {
        const seen = silent.connections();
        const p = orc(['run', 'list'], {
          env: { ORC_BASE_URL: 'https://127.0.0.1:9', ORC_API_KEY: 'sk_test_hostile', HTTPS_PROXY: silent.url },
          timeout: 30_000,
        });
        await until(() => silent.connections() > seen, 'orc to reach the proxy');
        p.kill(signal);
        const r = await p;
        expect(r.timedOut).toBe(false);
        expect([code, signal]).toContain(r.exitCode ?? r.signal);
      }
    } finally {
      await silent.close();
    }
  }, 60_000);
});

/** A TCP server on port 0 that hands each connection's first bytes to `answer`, counting connections. */
async function startHostileProxy(answer: (socket: Socket, head: string) => void) {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', (chunk) => answer(socket, chunk.toString('latin1')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
