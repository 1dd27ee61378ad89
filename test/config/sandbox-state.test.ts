// What orc takes for its sandbox (src/config/sandbox-state.ts healthz): only the program at the recorded
// address answering /healthz itself, which `sandbox stop` then trusts with a signal to the recorded pid.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { healthz } from '../../src/config/sandbox-state.js';

const servers: Server[] = [];
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('healthz', () => {
  it("reads the sandbox's own answer: its pid", async () => {
    const url = await serve((_req, res) => res.end(JSON.stringify({ ok: true, pid: 4242 })));
    expect(await healthz(url, 2_000)).toMatchObject({ pid: 4242 });
  });

  it('a program that redirects elsewhere is not the sandbox, whatever the other end says', async () => {
    const other = await serve((_req, res) => res.end(JSON.stringify({ ok: true, pid: 4242 })));
    const url = await serve((_req, res) => {
      res.writeHead(302, { location: `${other.replace('127.0.0.1', 'localhost')}/healthz` });
      res.end();
    });
    expect(await healthz(url, 2_000)).toBeNull();
  });
});
