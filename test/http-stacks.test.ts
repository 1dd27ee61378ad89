// Where the CLI speaks HTTP: the client (src/api: the one exchange over node:http/https, raw sockets for
// downloads, the proxy route), `webhook listen`'s receiver and forwarder (src/webhooks), `orc mcp --http`'s
// server (src/mcp/http.ts), the sandbox it may run (src/sandbox) and the console's browser code (src/console). Anything else that needs the service asks
// through src/api; no side request of its own (config/sandbox-state.ts once asked /healthz by itself).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');
const SPEAKS_HTTP = ['api', 'webhooks', 'mcp', 'sandbox', 'console'];
const NETWORK = /'node:(?:http|https|net|tls)'|\bfetch\(/;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

it('only the client, the webhook listener, the MCP server, the sandbox and the console open HTTP connections', () => {
  const elsewhere: string[] = [];
  for (const file of sources(SRC)) {
    const name = relative(SRC, file);
    if (SPEAKS_HTTP.includes(name.split('/')[0]!)) continue;
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const [i, line] of lines.entries())
      if (NETWORK.test(line) && !line.trimStart().startsWith('import type')) elsewhere.push(`${name}:${i + 1}`);
  }
  expect(elsewhere).toEqual([]);
});
