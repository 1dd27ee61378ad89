// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the built
// `orc mcp --http`: every scenario that applies to orc passes, the others are listed with why in
// mcp-conformance.yml. The suite's client sends no Authorization header, so it reaches orc through a
// forwarding proxy here that adds the token and passes every other header as sent (Host and Origin included:
// the DNS-rebinding scenario is still orc's own check); the 401 is tested in test/mcp/http-server.test.ts.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NO_PROXIES } from '../helpers/cli.js';
import { startMcpHttp } from '../helpers/mcp-http.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

/** The scenarios of --suite active that apply to a server with orc's capabilities (tools, resources). */
const APPLY = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];
const CONFORMANCE = resolve(import.meta.dirname, '../../node_modules/.bin/conformance');
const BASELINE = resolve(import.meta.dirname, 'mcp-conformance.yml');

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 3_600_000 });
});
afterAll(() => sb.close());

/** Forwards every request to `target` as sent, plus the bearer token. */
async function tokenProxy(target: string, token: string): Promise<Server> {
  const to = new URL(target);
  const proxy = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const up = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
  return proxy;
}

it('passes every scenario of the official MCP conformance suite that applies to it', { timeout: 180_000 }, async () => {
  const { url, token, proc } = await startMcpHttp(sb.url);
  const proxy = await tokenProxy(url, token!);
  const out = mkdtempSync(join(tmpdir(), 'orc-mcp-conformance-'));
  try {
    const port = (proxy.address() as AddressInfo).port;
    const suite = await execa(
      CONFORMANCE,
      [
        'server',
        '--url',
        `http://localhost:${port}/mcp`,
        '--suite',
        'active',
        '--expected-failures',
        BASELINE,
        '-o',
        out,
      ],
      { reject: false, timeout: 150_000, env: { ...NO_PROXIES } },
    );
    expect(suite.exitCode, `${suite.stdout}\n${suite.stderr}`).toBe(0);
    const statuses = new Map<string, string[]>();
    for (const dir of readdirSync(out)) {
      const scenario = APPLY.find((s) => dir.startsWith(`server-${s}-`));
      if (!scenario) continue;
      const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Array<{ status: string }>;
      statuses.set(
        scenario,
        checks.map((c) => c.status),
      );
    }
    // Each one ran (one silently missing fails here) and every check it made succeeded.
    for (const s of APPLY) {
      expect(statuses.get(s), s).toBeDefined();
      expect(statuses.get(s)!.length, s).toBeGreaterThan(0);
      expect(new Set(statuses.get(s)), s).toEqual(new Set(['SUCCESS']));
    }
  } finally {
    proxy.close();
    proc.kill('SIGTERM');
    await proc;
  }
});
