// What the network and proxies do to orc: a proxy of the tests' own between the built orc and the sandbox.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/clock.js';
import { runOrc as orc } from '../helpers/run.js';
import { useProxiedSandbox } from '../helpers/proxied.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const shared = useProxiedSandbox({ stageMs: 30_000 });

/** orc through the proxy, on a clock whose waits (backoff, Retry-After) pass at once and are recorded. */
let clock = new FakeClock({ autoMs: 10_000 });
const viaProxy = (args: string[], env: Record<string, string> = {}) => {
  clock = new FakeClock({ autoMs: 10_000 });
  return orc(args, { env: { ORC_BASE_URL: shared.proxy.url, ...env }, clock });
};
const idea = ['--pitch', 'A tide table', '--audience', 'sailors', '--monetization', 'paid'];
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('retries', () => {
  it('a connection reset after the service created the run: retried with the same key, exactly one run', async () => {
    const before = (await shared.sb.call('GET', '/v1/runs?limit=100')).body.data.length;
    shared.proxy.plan = (req, n) =>
      req.method === 'POST' && n === 1 ? { kind: 'reset-after-forward' } : { kind: 'pass' };
    const r = await viaProxy(['run', 'create', ...idea, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const posts = shared.proxy.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    const runs = (await shared.sb.call('GET', '/v1/runs?limit=100')).body.data;
    expect(runs).toHaveLength(before + 1);
    expect(JSON.parse(r.stdout).id).toBe(runs[0].id);
    expect(r.stderr).toMatch(/connection (closed|reset).*retrying/);
  });

  it('429 with Retry-After: waits that long, then succeeds', async () => {
    shared.proxy.plan = (_req, n) =>
      n === 1
        ? {
            kind: 'answer',
            status: 429,
            headers: { 'retry-after': '1', 'content-type': 'application/json' },
            body: JSON.stringify({ error: { type: 'rate_limit_error', code: 'rate_limited', message: 'slow down' } }),
          }
        : { kind: 'pass' };
    const r = await viaProxy(['run', 'list', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(clock.requested.filter((ms) => ms < 30_000)).toEqual([1000]); // waited exactly that, on the clock
    expect(r.stderr).toContain('429 rate_limited; retrying in 1 s');
    expect(shared.proxy.seen).toHaveLength(2);
  });

  it('429 asking for an hour: fails at once with exit 3 and says when to retry', async () => {
    shared.proxy.plan = () => ({
      kind: 'answer',
      status: 429,
      headers: { 'retry-after': '3600', 'content-type': 'application/json', 'x-request-id': 'req_limit' },
      body: JSON.stringify({ error: { type: 'rate_limit_error', code: 'rate_limited', message: 'too many requests' } }),
    });
    const r = await viaProxy(['run', 'list']);
    expect(r.exitCode).toBe(3);
    // At once on the clock: no wait of the hour asked (which the fake clock would never have ended by itself).
    expect(clock.requested).not.toContain(3_600_000);
    expect(shared.proxy.seen).toHaveLength(1);
    expect(r.stderr).toMatch(/retry in 60 min, after \d{4}-\d\d-\d\dT/);
    expect(r.stderr).toContain('req_limit');
  });

  it('a burst of 503s: retried with backoff until the service answers', async () => {
    shared.proxy.plan = (_req, n) =>
      n <= 3
        ? {
            kind: 'answer',
            status: 503,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ error: { type: 'api_error', code: 'unavailable', message: 'busy' } }),
          }
        : { kind: 'pass' };
    const r = await viaProxy(['run', 'list', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(shared.proxy.seen).toHaveLength(4);
    expect(r.stderr.match(/503 unavailable; retrying/g)).toHaveLength(3);
    // min(0.5 s · 2^n, 8 s), less up to a quarter at random
    const waits = clock.requested.filter((ms) => ms < 30_000);
    expect(waits).toHaveLength(3);
    waits.forEach((ms, n) => {
      expect(ms).toBeGreaterThan(500 * 2 ** n * 0.75 - 1);
      expect(ms).toBeLessThanOrEqual(500 * 2 ** n);
    });
  });

  it('never retries a 4xx it should not', async () => {
    shared.proxy.plan = () => ({
      kind: 'answer',
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: { type: 'not_found_error', code: 'run_not_found', message: 'no such run' } }),
    });
    const r = await viaProxy(['run', 'get', 'run_x']);
    expect(r.exitCode).toBe(3);
    expect(shared.proxy.seen).toHaveLength(1);
  });
});

describe('answers that are not the service', () => {
  it('an HTML 502 from a proxy: the status and request id, never a parse error or a stack', async () => {
    shared.proxy.plan = () => ({
      kind: 'answer',
      status: 502,
      headers: { 'content-type': 'text/html', 'x-request-id': 'req_edge_502' },
      body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
    });
    const r = await viaProxy(['run', 'get', 'run_x']);
    expect(r.exitCode).toBe(1);
    expect(shared.proxy.seen).toHaveLength(5); // 5xx is retried: 1 + 4
    expect(r.stderr).toContain('502 Bad Gateway (text/html, 50 bytes');
    expect(r.stderr).toContain('req_edge_502');
    expect(r.stderr).not.toMatch(/SyntaxError|Unexpected token|\n\s+at /);
    expect(r.stdout).toBe('');
  }, 20_000);

  it('an empty 400 is reported as such, with exit 2', async () => {
    shared.proxy.plan = () => ({ kind: 'answer', status: 400, headers: {} });
    const r = await viaProxy(['run', 'get', 'run_x']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('400 Bad Request (an empty body');
  });

  it('a validation error from the service names the field and the flag that sets it', async () => {
    shared.proxy.plan = () => ({
      kind: 'answer',
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        error: {
          type: 'invalid_request_error',
          code: 'invalid_value',
          message: 'audience is too vague',
          field: 'idea.audience',
        },
      }),
    });
    const r = await viaProxy(['run', 'create', ...idea]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('idea.audience (--audience): audience is too vague');
  });

  it('a redirect to another host: the key does not follow, and orc says why (exit 4)', async () => {
    const evilSeen: IncomingMessage[] = [];
    const evil = createServer((req, res) => {
      evilSeen.push(req);
      res.end('{}');
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}`; // another origin
      shared.proxy.plan = () => ({ kind: 'redirect', location: `${evilUrl}/v1/runs` });
      const r = await viaProxy(['run', 'list']);
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toContain('redirected to');
      expect(evilSeen).toHaveLength(0);
    } finally {
      evil.close();
    }
  });

  it('escape sequences in server strings never reach the terminal', async () => {
    const created = await shared.sb.createRun('Escapes');
    const nasty = '\u001b]0;pwned\u0007\u001b[2J\u001b[31m05_build\u009b1m\u0007';
    shared.proxy.plan = () => ({
      kind: 'rewrite',
      rewrite: (body) =>
        body.replace('"01_intake"', JSON.stringify(nasty)).replace('"running"', JSON.stringify('running\u001b[8m')),
    });
    for (const args of [
      ['run', 'get', created.id],
      ['run', 'list'],
      ['run', 'get', created.id, '--json'],
      ['run', 'list', '--json'],
    ]) {
      const r = await viaProxy(args);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain('05_build');
      expect(r.stdout, args.join(' ')).not.toMatch(CONTROL);
    }
    shared.proxy.plan = () => ({
      kind: 'answer',
      status: 404,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req_escapes' },
      body: JSON.stringify({
        error: {
          type: 'not_found_error',
          code: 'run_not_found',
          message: 'gone \u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007 \u009b2J',
        },
      }),
    });
    const err = await viaProxy(['run', 'get', 'run_x']);
    expect(err.exitCode).toBe(3);
    expect(err.stderr).toContain('gone click');
    expect(err.stderr).not.toMatch(CONTROL);
  });
});

describe('the key', () => {
  it('--debug shows the exchange on stderr with the key redacted; the key is nowhere whole', async () => {
    const secretSb = await startTestSandbox({ apiKey: 'sk_test_VerySecretValue9876' });
    try {
      const r = await orc(['run', 'list', '--debug', '--json'], {
        env: { ORC_BASE_URL: secretSb.url, ORC_API_KEY: 'sk_test_VerySecretValue9876' },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/> GET http:\/\/127\.0\.0\.1:\d+\/v1\/runs/);
      expect(r.stderr).toContain('> authorization: Bearer sk_test_…9876');
      expect(r.stderr).toMatch(/< 200 OK \(\d+ ms\)/);
      expect(r.stderr).toContain('< x-request-id: req_');
      expect(r.stdout + r.stderr).not.toContain('VerySecretValue');
      expect(JSON.parse(r.stdout)).toEqual([]);
    } finally {
      await secretSb.close();
    }
  });

  it('is never sent over plain http to another machine', async () => {
    const env = await orc(['run', 'list'], { env: { ORC_BASE_URL: 'http://example.com' } });
    expect(env.exitCode).toBe(4);
    expect(env.stderr).toContain('ORC_BASE_URL: plain http is only for this machine');
    const flag = await orc(['run', 'list', '--base-url', 'http://example.com']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain('--base-url');
  });

  it('a test key is not sent to a non-sandbox host, nor a live key to the sandbox', async () => {
    const test = await orc(['run', 'list', '--base-url', 'https://api.example.com']);
    expect(test.exitCode).toBe(4);
    expect(test.stderr).toContain('test keys are for the sandbox');
    const live = await viaProxy(['run', 'list', '--live'], { ORC_API_KEY: 'sk_live_abcdefgh12345678' });
    expect(live.exitCode).toBe(4);
    expect(live.stderr).toContain('refusing to send a live key to the sandbox');
    expect(live.stderr).not.toContain('abcdefgh12345678');
    const unflagged = await viaProxy(['run', 'list'], { ORC_API_KEY: 'sk_live_abcdefgh12345678' });
    expect(unflagged.exitCode).toBe(4);
    expect(unflagged.stderr).toContain('--live was not given');
    expect(shared.proxy.seen).toHaveLength(0);
  });

  it('a wrong key is exit 4 with the service message', async () => {
    const r = await viaProxy(['run', 'list'], { ORC_API_KEY: 'sk_test_wrongwrongwrong' });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('invalid_api_key');
  });
});

describe('sandbox export', () => {
  it('streams a snapshot past the 64 MiB a JSON answer may take, into the file as it arrives', async () => {
    const own = await startTestSandbox({ stageMs: 600_000 });
    try {
      // 70 runs whose App Spec holds close to 1 MiB each: some 70 MB of snapshot
      const description = 'x'.repeat(1_000_000);
      for (let i = 0; i < 70; i++) {
        const r = await own.call('POST', '/v1/runs', { mode: 'ship', source: { name: `Big ${i}`, description } });
        expect(r.status, r.text.slice(0, 200)).toBe(201);
      }
      // written by the sandbox record by record, not as one string of known length
      const head = await fetch(`${own.url}/_sandbox/export`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(head.headers.get('content-length')).toBeNull();
      expect(head.headers.get('x-request-id')).toMatch(/^req_/);
      await head.body?.cancel();
      const dir = mkdtempSync(join(tmpdir(), 'orc-export-'));
      const file = join(dir, 'big.json');
      const r = await orc(['sandbox', 'export', file, '--json'], { env: { ORC_BASE_URL: own.url } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ file, runs: 70, webhooks: 0, deliveries: 0 });
      expect(statSync(file).size).toBeGreaterThan(64 * 1024 * 1024);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const snap = JSON.parse(readFileSync(file, 'utf8'));
      expect(snap.runs).toHaveLength(70);
      expect(readdirSync(dir)).toEqual(['big.json']);
    } finally {
      await own.close();
    }
  }, 60_000);

  it('a body cut off is tried again from the start; `-` writes it to stdout', async () => {
    await shared.sb.createRun('Exported');
    const dir = mkdtempSync(join(tmpdir(), 'orc-export-'));
    const file = join(dir, 'snap.json');
    shared.proxy.plan = (req, n) =>
      req.url?.startsWith('/_sandbox/export') && n === 1 ? { kind: 'cut-body', afterBytes: 200 } : { kind: 'pass' };
    const r = await viaProxy(['sandbox', 'export', file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe('orc-sandbox-snapshot');
    expect(readdirSync(dir)).toEqual(['snap.json']);
    const out = await viaProxy(['sandbox', 'export', '-']);
    expect(out.exitCode, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).runs.length).toBeGreaterThan(0);
  });

  it('a file it cannot write: export\'s own hint, not a download\'s (--dir, "resumed"), and nothing left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-export-'));
    const r = await viaProxy(['sandbox', 'export', join(dir, 'missing', 'snap.json')]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(`cannot write to ${join(dir, 'missing')}`);
    expect(r.stderr).toContain('Give the snapshot a path in a folder you can write');
    expect(r.stderr).not.toContain('--dir');
    expect(r.stderr).not.toContain('resumed');
    expect(readdirSync(dir)).toEqual([]);
  });
});
