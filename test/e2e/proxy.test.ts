// orc behind a real forward proxy (Debian's tinyproxy): API calls, the event stream and a resumed download
// go through it, over http to the sandbox and over https (CONNECT, then TLS to a certificate orc trusts
// through NODE_EXTRA_CA_CERTS); NO_PROXY sends loopback direct; a proxy elsewhere never carries a plain-http
// request (the key would cross the network in clear); a proxy that refuses is one line, not a retry loop.
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    await until(async () => (await sb.call('GET', `/v1/runs/${finished}/artifacts`)).body.data.every((a: { status: string }) => a.status === 'ready'), 'the artifacts', 20_000);
  }, 60_000);
  afterAll(async () => {
    proxy?.close();
    await faults?.close();
    await sb?.close();
  });

  const port = (url: string) => new URL(url).port;
  const tunnelsTo = (url: string) => proxy.carried().filter((c) => c.startsWith('CONNECT') && c.endsWith(`:${port(url)}`)).length;

  it('carries a run from create to accepted: the API calls and the event stream', async () => {
    const before = tunnelsTo(sb.url);
    const r = await orc(['run', 'create', ...idea, '--watch', '--approve', 'idea,brand,final', '--json', '--debug'], { env: { ORC_BASE_URL: sb.url, HTTP_PROXY: proxy.url } });
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(events.at(-1).type).toBe('run.accepted');
    expect(r.stderr).toContain(`* through the proxy ${proxy.url} (from HTTP_PROXY)`);
    expect(r.stderr).toMatch(/> GET \S+\/v1\/runs\/run_\S+\/events/); // the event stream, through the same proxy
    expect(tunnelsTo(sb.url)).toBeGreaterThan(before);
  }, 60_000);

  it('NO_PROXY=127.0.0.1 sends loopback direct: the proxy carries nothing', async () => {
    const before = proxy.carried().length;
    const r = await orc(['run', 'get', finished, '--json', '--debug'], { env: { ORC_BASE_URL: sb.url, HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('accepted');
    expect(r.stderr).not.toContain('through the proxy');
    expect(proxy.carried().length).toBe(before);
  });

  it('a proxy on another host never carries a plain-http request: it goes direct', async () => {
    // 192.0.2.1 is TEST-NET-1: were orc to use it, the request would hang, then fail.
    const r = await orc(['run', 'get', finished, '--json', '--debug', '--timeout', '10'], { env: { ORC_BASE_URL: sb.url, HTTP_PROXY: 'http://192.0.2.1:3128' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('through the proxy');
  });

  it('a download cut off is resumed through the proxy, from where it stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-pull-proxy-'));
    const part = join(dir, '.orc-partial', 'ipa', 'HabitTracker.ipa');
    const env = { ORC_BASE_URL: faults.url, HTTP_PROXY: proxy.url };
    faults.plan = (req) => (req.url.startsWith('/files/') ? { kind: 'cut-body', afterBytes: 1_000_000, stall: true } : { kind: 'pass' });
    const first = orc(['artifacts', 'pull', finished, 'ipa', '--dir', dir], { env });
    await until(() => existsSync(part) && statSync(part).size === 1_000_000, 'the first 1 MB on disk', 20_000);
    first.kill('SIGINT');
    expect((await first).exitCode).toBe(130);
    faults.plan = () => ({ kind: 'pass' });
    faults.seen.length = 0;
    const before = tunnelsTo(faults.url);
    const again = await orc(['artifacts', 'pull', finished, 'ipa', '--dir', dir, '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    const file = JSON.parse(again.stdout).files[0];
    expect(file.state).toBe('resumed');
    expect(faults.seen.filter((s) => s.url.startsWith('/files/')).map((s) => s.headers.range)).toEqual(['bytes=1000000-']);
    expect(tunnelsTo(faults.url)).toBeGreaterThan(before);
    expect(statSync(file.path).size).toBe(file.size); // and its sha256 checked, or the pull would have failed
  }, 60_000);

  it('a proxy that refuses the connection is one line naming it and its variable, exit 1, no retry loop', async () => {
    const r = await orc(['run', 'get', finished], { env: { ORC_BASE_URL: sb.url, HTTP_PROXY: 'http://127.0.0.1:1' } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('the proxy http://127.0.0.1:1 (from HTTP_PROXY) refused the connection');
    expect(r.stderr).not.toContain('retrying');
  });

  it('a proxy variable that is not a URL is exit 4 naming the variable, and its password is never printed', async () => {
    const r = await orc(['run', 'get', finished], { env: { ORC_BASE_URL: sb.url, HTTP_PROXY: 'http://user:s3cret@[bad' } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('HTTP_PROXY is not a proxy URL');
    expect(r.stderr).not.toContain('s3cret');
  });

  describe('to an https service', () => {
    let tlsSb: TestSandbox;
    let ca: string;
    beforeAll(async () => {
      const tls = sandboxTls(mkdtempSync(join(tmpdir(), 'orc-tls-')), []);
      ca = tls.caFile;
      tlsSb = await startTestSandbox({ stageMs: 20, clock: quickClock(), tls });
    });
    afterAll(async () => {
      await tlsSb?.close();
    });

    it('tunnels with CONNECT, and TLS goes end to end through it (the CA from NODE_EXTRA_CA_CERTS)', async () => {
      expect(tlsSb.url).toMatch(/^https:/);
      const before = tunnelsTo(tlsSb.url);
      const r = await orc(['run', 'create', ...idea, '--json', '--debug'], { env: { ORC_BASE_URL: tlsSb.url, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: ca } });
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
