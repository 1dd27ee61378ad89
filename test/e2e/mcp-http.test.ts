// The built `orc mcp --http` against a sandbox on port 0: what it prints, the SDK's client over HTTP with the
// token, --json and ORC_MCP_TOKEN, --tls, a host beyond loopback refused without --tls, and SIGTERM.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orc } from '../helpers/cli.js';
import { startMcpHttp } from '../helpers/mcp-http.js';
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
    // 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of this machine.
    const r = await orc(['mcp', '--http', '--host', '192.0.2.1', '--insecure-plain-http'], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('cannot listen on 192.0.2.1');
    expect(r.stderr).toContain('--host');
    expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('--tls serves https on loopback with a certificate its printed CA vouches for', async () => {
    const { url, token, caFile, proc } = await startMcpHttp(sb.url, ['--tls', '--json']);
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
      await proc;
    }
  });
});
