// The built `orc mcp --http` against a sandbox on port 0: what it prints, the SDK's client over HTTP with the
// token, --json and ORC_MCP_TOKEN, --tls, a host beyond loopback refused without --tls, and SIGTERM.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigDir, orc } from '../helpers/cli.js';
import { startMcpHttp } from '../helpers/mcp-http.js';
import { isLinkLocal } from '../../src/lib/hosts.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 3_600_000 });
});
afterAll(() => sb.close());

async function connect(url: string, token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'e2e', version: '1' });
  await client.connect(transport);
  return client;
}

/** An initialize to `url` with the token (and the CA, for https): its status. */
function initialize(url: string, token: string, ca?: Buffer): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
  });
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  return new Promise<number>((resolve, reject) => {
    const req = (url.startsWith('https:') ? request : httpRequest)(
      url,
      { method: 'POST', headers, ...(ca ? { ca } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('orc mcp --http', () => {
  it('prints its loopback URL and a token; an SDK client with it calls get_run; SIGTERM closes it (130)', async () => {
    const { url, token, proc } = await startMcpHttp(sb.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(token).toMatch(/^[\w-]{43,}$/);
    const run = await sb.createRun('Over HTTP, built');
    const client = await connect(url, token!);
    const r = (await client.callTool({ name: 'get_run', arguments: { run_id: run.id } })) as any;
    expect(r.structuredContent.run.id).toBe(run.id);
    proc.kill('SIGTERM');
    const done = await proc;
    expect(done.exitCode).toBe(130);
    expect(done.stdout.trim()).toBe(`${url}\n${token}`);
    expect(done.stderr).toContain('Authorization: Bearer');
    expect(done.stderr).toContain('SIGTERM');
    await expect(fetch(url, { method: 'POST' })).rejects.toThrow();
  });

  it('--json prints one line; with ORC_MCP_TOKEN the token is that one and printed nowhere', async () => {
    const given = 'a-token-from-the-environment-0123456789';
    const { url, token, proc } = await startMcpHttp(sb.url, ['--json'], { ORC_MCP_TOKEN: given });
    expect(token).toBeUndefined();
    const unauthorized = await fetch(url, { method: 'POST', body: '{}' });
    expect(unauthorized.status).toBe(401);
    expect((await connect(url, given)).getServerVersion()?.name).toBe('orc');
    proc.kill('SIGINT');
    const done = await proc;
    expect(done.exitCode).toBe(130);
    expect(JSON.parse(done.stdout)).toEqual({ url });
    expect(done.stdout + done.stderr).not.toContain(given);
  });

  it('refuses a host beyond loopback without --tls or --insecure-plain-http (exit 2, nothing listens)', async () => {
    const r = await orc(['mcp', '--http', '--host', '0.0.0.0', '--port', '0'], {
      env: { ORC_BASE_URL: sb.url, ORC_NO_KEYCHAIN: '1' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--tls');
    expect(r.stderr).toContain('--insecure-plain-http');
    expect(r.stdout).toBe('');
    const stdio = await orc(['mcp', '--port', '4000'], { env: { ORC_BASE_URL: sb.url, ORC_NO_KEYCHAIN: '1' } });
    expect(stdio.exitCode).toBe(2);
    expect(stdio.stderr).toContain('--port goes with --http');
  });

  it('says why it cannot listen, naming the port or the host and the flag (exit 1, no stack, nothing on stdout)', async () => {
    const env = { ORC_BASE_URL: sb.url, ORC_NO_KEYCHAIN: '1' };
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = String((blocker.address() as { port: number }).port);
      const r = await orc(['mcp', '--http', '--port', port], { env });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(r.stderr).toContain('--port');
      expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
      expect(r.stdout).toBe('');
    } finally {
      blocker.close();
    }
    const foreign = notThisMachine();
    const r = await orc(['mcp', '--http', '--host', foreign, '--insecure-plain-http'], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`cannot listen on ${foreign}`);
    expect(r.stderr).toContain('--host');
    expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('on every interface (--host 0.0.0.0) prints a URL with an external address of the machine that works, and says so', async () => {
    const { url, token, proc } = await startMcpHttp(sb.url, ['--host', '0.0.0.0', '--insecure-plain-http']);
    try {
      // An address, not the host name, which this machine's resolver may not know: IPv4 where it has one.
      const external = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal && !isLinkLocal(a.address));
      const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
      expect(url).toMatch(/^http:\/\/[^/]+:\d+\/mcp$/);
      const family = external.some((a) => a!.family === 'IPv4') ? 'IPv4' : 'IPv6';
      expect(external.filter((a) => a!.family === family).map((a) => a!.address)).toContain(host);
      expect(await initialize(url, token!)).toBe(200);
    } finally {
      proc.kill('SIGTERM');
    }
    const done = await proc;
    expect(done.stderr).toContain('every interface');
  });

  it('on every interface with --tls, the certificate names an address of this machine and its name', async () => {
    const { url, token, caFile, proc } = await startMcpHttp(sb.url, ['--host', '0.0.0.0', '--tls', '--json']);
    try {
      const ca = readFileSync(caFile!);
      const port = Number(new URL(url).port);
      const names = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port, ca }, () => {
          resolve(socket.getPeerX509Certificate()?.subjectAltName ?? '');
          socket.end();
        });
        socket.on('error', reject);
      });
      const external = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal)
        .map((a) => a!.address);
      expect(external.filter((a) => !isLinkLocal(a)).length).toBeGreaterThan(0);
      // (an IPv6 address as the URL parser writes it, whatever form the certificate's text has)
      const canonical = (ip: string) => (ip.includes(':') ? new URL(`http://[${ip}]`).hostname : ip);
      const named = names.split(', ').map((n) => (n.startsWith('IP Address:') ? canonical(n.slice(11)) : n));
      // Link-local addresses (fe80::/10) come and go with the interface: named, they would make new CAs.
      for (const a of external) expect(named.includes(canonical(a)), a).toBe(!isLinkLocal(a));
      expect(named).toContain(`DNS:${hostname()}`);
      expect(await initialize(url, token!, ca)).toBe(200);
    } finally {
      proc.kill('SIGTERM');
      await proc;
    }
  });

  it('takes loopback in brackets (--host [::1]) as loopback, and refuses what is not a host (exit 2)', async () => {
    const { url, token, proc } = await startMcpHttp(sb.url, ['--host', '[::1]']);
    try {
      expect(url).toMatch(/^http:\/\/\[::1\]:\d+\/mcp$/);
      expect(await initialize(url, token!)).toBe(200);
    } finally {
      proc.kill('SIGTERM');
      await proc;
    }
    const r = await orc(['mcp', '--http', '--host', 'bad host!', '--tls'], {
      env: { ORC_BASE_URL: sb.url, ORC_NO_KEYCHAIN: '1' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--host "bad host!" is not a host name or an IP address');
    expect(r.stdout).toBe('');
  });

  it('refuses an ORC_MCP_TOKEN no client could send (short, or not visible ASCII: whitespace, control, €): exit 2, nothing listens', async () => {
    const cases: Array<[string, string]> = [
      ['short-token-15c', 'shorter than 16 characters'],
      ['a token with spaces 0123456789', 'not visible ASCII'],
      [' leading-space-0123456789abcdef', 'not visible ASCII'],
      ['a-bell-\u0007-in-it-0123456789', 'not visible ASCII'],
      ['a-euro-€-in-it-0123456789abcdef', 'not visible ASCII'],
      ['ein-tokën-mit-umlaut-0123456789', 'not visible ASCII'],
    ];
    for (const [token, why] of cases) {
      const proc = orc(['mcp', '--http'], {
        env: { ORC_BASE_URL: sb.url, ORC_NO_KEYCHAIN: '1', ORC_MCP_TOKEN: token },
      });
      // Whichever comes first is the result: it exits, or it listens and prints its URL (then it is stopped).
      const listening = new Promise<'listening'>((said) => proc.stdout.once('data', () => said('listening')));
      const first = await Promise.race([proc.then(() => 'exited' as const), listening]);
      if (first === 'listening') proc.kill('SIGTERM');
      const r = await proc;
      expect(first, token).toBe('exited');
      expect(r.exitCode, token).toBe(2);
      expect(r.stderr).toContain('ORC_MCP_TOKEN');
      expect(r.stderr).toContain(why);
      expect(r.stderr).not.toContain(token.trim());
      expect(r.stdout).toBe('');
    }
  });

  it('--tls serves https on loopback with a certificate its printed CA vouches for; a new CA is said on stderr', async () => {
    const configDir = freshConfigDir();
    const first = await startMcpHttp(sb.url, ['--tls', '--json'], { ORC_CONFIG_DIR: configDir });
    first.proc.kill('SIGTERM');
    const made = await first.proc;
    expect(made.stderr).toContain(`a new CA was made for this server's names (${first.caFile})`);
    expect(JSON.parse(made.stdout)).toEqual({ url: first.url, token: first.token, ca_file: first.caFile });
    const { url, token, caFile, proc } = await startMcpHttp(sb.url, ['--tls', '--json'], { ORC_CONFIG_DIR: configDir });
    expect(caFile).toBe(first.caFile);
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          url,
          { method: 'POST', ca: readFileSync(caFile!), headers: { authorization: `Bearer ${token}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        req.end('{"jsonrpc":');
      });
      expect(status).toBe(400); // through TLS to the JSON-RPC parse error: the certificate was trusted
    } finally {
      proc.kill('SIGTERM');
    }
    // The CA kept from the first start: nothing to trust anew.
    expect((await proc).stderr).not.toContain('a new CA');
  });
});

/** An address of the TEST-NET ranges (RFC 5737) that this machine does not hold now (some hold one: this test's VM
 * has 192.0.2.2), so listening on it fails. */
function notThisMachine(): string {
  const own = new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((a) => a?.address),
  );
  for (const net of ['192.0.2', '198.51.100', '203.0.113'])
    for (let i = 1; i < 255; i++) if (!own.has(`${net}.${i}`)) return `${net}.${i}`;
  throw new Error('this machine holds every TEST-NET address');
}
