// `orc api` in process, against a sandbox on port 0 behind a fault proxy (to see and disturb what is sent),
// on a fake clock so retries pass at once.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/clock.js';
import { useProxiedSandbox } from '../helpers/proxied.js';
import { runOrc } from '../helpers/run.js';
import { handServer } from '../helpers/server.js';

const env = useProxiedSandbox({ stageMs: 30_000 });
const orc = (args: string[], o: { input?: string; tty?: boolean } = {}) =>
  runOrc(args, {
    env: { ORC_BASE_URL: env.proxy.url },
    clock: new FakeClock({ autoMs: 10_000 }),
    ...(o.input !== undefined ? { input: o.input } : {}),
    ...(o.tty ? { tty: { stdout: true, stderr: true } } : {}),
  });
const countRuns = async () => (await env.sb.call('GET', '/v1/runs?limit=100')).body.data.length as number;

describe('orc api', () => {
  it('prints the body as it came when piped, formatted at a terminal', async () => {
    const run = await env.sb.createRun();
    const raw = (await env.sb.call('GET', `/v1/runs/${run.id}`)).text;
    const piped = await orc(['api', 'GET', `/v1/runs/${run.id}`]);
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(raw);
    expect(JSON.parse(piped.stdout)).toEqual(JSON.parse(raw));
    const tty = await orc(['api', 'get', `v1/runs/${run.id}`], { tty: true });
    expect(tty.stdout).toBe(JSON.stringify(JSON.parse(raw), null, 2));
    // An absolute URL of the service itself is fine.
    const absolute = await orc(['api', 'GET', `${env.proxy.url}/v1/runs/${run.id}`]);
    expect(absolute.exitCode).toBe(0);
    // The method left out, as `gh api` is typed: a GET of the path (or URL) given first.
    for (const path of [`/v1/runs/${run.id}`, `${env.proxy.url}/v1/runs/${run.id}`]) {
      const bare = await orc(['api', path]);
      expect(bare.exitCode, bare.stderr).toBe(0);
      expect(JSON.parse(bare.stdout)).toEqual(JSON.parse(raw));
      expect(env.proxy.seen.at(-1)!.method).toBe('GET');
    }
  });

  it('builds a JSON body from -f (dotted keys nest, values typed), with one Idempotency-Key kept across a retry', async () => {
    const before = await countRuns();
    env.proxy.plan = (req, n) =>
      req.method === 'POST' && n === 1 ? { kind: 'reset-after-forward' } : { kind: 'pass' };
    const r = await orc([
      'api',
      'POST',
      '/v1/runs',
      '-f',
      'mode=idea',
      '-f',
      'idea.pitch=A tide table',
      '-f',
      'idea.audience=sailors',
      '-f',
      'idea.monetization=paid',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'idea', status: 'running' });
    const posts = env.proxy.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(await countRuns()).toBe(before + 1);

    // The caller's own key is used as given; a replay makes nothing new.
    const withKey = [
      'api',
      'POST',
      '/v1/runs',
      '--header',
      'Idempotency-Key: api-test-1',
      '--data',
      '{"mode":"idea","idea":{"pitch":"Once","audience":"a","monetization":"free"}}',
    ];
    const first = await orc(withKey);
    const second = await orc(withKey);
    expect(JSON.parse(second.stdout).id).toBe(JSON.parse(first.stdout).id);
    expect(await countRuns()).toBe(before + 2);
  });

  it('types -f values, and puts them in the query on GET', async () => {
    const hand = await handServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ method: req.method, url: req.url, body: body ? JSON.parse(body) : null })),
      );
    });
    try {
      const run = (args: string[]) =>
        runOrc(['api', ...args], { env: { ORC_BASE_URL: hand.url, ORC_API_KEY: 'sk_test_handwritten_000000000000' } });
      const post = JSON.parse(
        (
          await run([
            'PATCH',
            '/x',
            '-f',
            'a.b=12',
            '-f',
            'a.c=true',
            '-f',
            'd=null',
            '-f',
            'e=007',
            '-f',
            'f=1.5e3',
            '-f',
            'g=text with = sign',
          ])
        ).stdout,
      );
      expect(post.body).toEqual({ a: { b: 12, c: true }, d: null, e: '007', f: 1500, g: 'text with = sign' });
      const get = JSON.parse((await run(['GET', '/v1/runs', '-f', 'limit=2', '-f', 'status=running'])).stdout);
      expect(get.url).toBe('/v1/runs?limit=2&status=running');
      expect(get.body).toBeNull();
    } finally {
      await hand.close();
    }
  });

  it('a non-2xx answer: exit 3, the error envelope on stderr, nothing on stdout; --include shows status and headers', async () => {
    const r = await orc(['api', 'GET', '/v1/runs/run_nope']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.slice(0, r.stderr.lastIndexOf('}') + 1))).toMatchObject({
      error: { code: 'run_not_found' },
    });
    expect(r.stderr).toMatch(/answered HTTP 404, run_not_found, request id req_/);
    const inc = await orc(['api', 'GET', '/v1/runs?limit=1', '--include']);
    expect(inc.exitCode).toBe(0);
    expect(inc.stderr).toMatch(/^HTTP\/1\.1 200 OK\n/);
    expect(inc.stderr).toMatch(/^x-request-id: req_/m);
    expect(JSON.parse(inc.stdout).data).toBeInstanceOf(Array);
  });

  it('retries a 503 before answering, like every command', async () => {
    env.proxy.plan = (_req, n) =>
      n === 1
        ? {
            kind: 'answer',
            status: 503,
            headers: { 'content-type': 'application/json', 'retry-after': '1' },
            body: '{"error":{"type":"api_error","code":"unavailable","message":"busy"}}',
          }
        : { kind: 'pass' };
    const r = await orc(['api', 'GET', '/v1/runs?limit=1']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(env.proxy.seen).toHaveLength(2);
  });

  it('--paginate follows next_cursor and prints one array of every item', async () => {
    for (let i = 0; i < 5; i++) await env.sb.createRun(`Page ${i}`);
    const total = await countRuns();
    const r = await orc(['api', 'GET', '/v1/runs?limit=2', '--paginate']);
    expect(r.exitCode, r.stderr).toBe(0);
    const items = JSON.parse(r.stdout);
    expect(items).toHaveLength(total);
    expect(new Set(items.map((i: { id: string }) => i.id)).size).toBe(total);
    expect(env.proxy.seen.length).toBe(Math.ceil(total / 2));
    expect(env.proxy.seen.slice(1).every((s) => s.url.includes('cursor='))).toBe(true);
    const notList = await orc(['api', 'GET', `/v1/runs/${items[0].id}`, '--paginate']);
    expect(notList.exitCode).toBe(2);
    expect(notList.stderr).toContain('is not a list');
  });

  it('refuses before sending: another origin (the key stays home), bad input, a header orc owns', async () => {
    const elsewhere = await handServer((_req, res) => res.writeHead(200).end('{}'));
    try {
      const dir = mkdtempSync(join(tmpdir(), 'orc-api-'));
      writeFileSync(join(dir, 'bad.json'), '{"a":');
      const cases: Array<[string[], string, string?]> = [
        [['GET', `${elsewhere.url}/v1/runs`], "is not the service's address"],
        [['FETCH', '/v1/runs'], '<method>'],
        [['POST', '/v1/runs', '--data', '{"a":'], '--data: not valid JSON'],
        [['POST', '/v1/runs', '--data', `@${join(dir, 'bad.json')}`], '--data @'],
        [['POST', '/v1/runs', '--data', `@${join(dir, 'none.json')}`], 'no such file'],
        [['POST', '/v1/runs', '--data', '-'], '--data -: not valid JSON', 'nope'],
        [['POST', '/v1/runs', '--data', '{}', '-f', 'a=1'], 'use one'],
        [['POST', '/v1/runs', '-f', 'novalue'], 'key=value'],
        [['POST', '/v1/runs', '-f', '__proto__.x=1'], '__proto__'],
        [['POST', '/v1/runs', '-f', 'a=1', '-f', 'a.b=2'], 'already a value'],
        [['POST', '/v1/runs', '--paginate'], '--paginate'],
        [['GET', '/v1/runs', '--header', 'Authorization: Bearer sk_test_other'], 'orc sets this one itself'],
        [['GET', '/v1/runs', '--header', 'no colon'], "'Name: value'"],
        [['GET', '/v1/runs with space'], 'spaces or control characters'],
      ];
      for (const [args, said, input] of cases) {
        const r = await orc(['api', ...args], input !== undefined ? { input } : {});
        expect(r.exitCode, args.join(' ')).toBe(2);
        expect(r.stderr, args.join(' ')).toContain(said);
        expect(r.stdout, args.join(' ')).toBe('');
      }
      expect(env.proxy.seen).toHaveLength(0);
      expect(elsewhere.seen).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});
