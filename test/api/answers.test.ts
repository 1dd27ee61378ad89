// What a misbehaving service, a closed pipe or a strange name must never do to orc: pages that never end,
// a Retry-After no date can hold, raw terminal controls through `orc api`, a profile named like a property
// of every object.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOrc } from '../helpers/run.js';
import { handServer, json, type HandServer } from '../helpers/server.js';

const KEY = 'sk_test_handwritten_0123456789';
const run = {
  id: 'run_h',
  mode: 'idea',
  status: 'running',
  stage: '01_intake',
  gate_pending: null,
  app_id: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
};
const RAW_TEXT = 'title\u001b]0;pwned\u0007 clear\u001b[2J rlo\u202eevil lrm\u200e rlm\u200f alm\u061c end\n';
let server: HandServer;
let pages = 0;
beforeAll(async () => {
  server = await handServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/v1/runs' && req.method === 'GET') {
      pages++;
      // A cursor that comes round again: c1, c2, c1, …
      return json(res, 200, {
        data: [run],
        has_more: true,
        next_cursor: url.searchParams.get('cursor') === 'c1' ? 'c2' : 'c1',
      });
    }
    if (url.pathname === '/v1/webhooks') {
      pages++;
      return json(res, 200, { data: [], has_more: true, next_cursor: 'w1' });
    }
    if (url.pathname === '/v1/runs/run_later')
      return json(
        res,
        429,
        { error: { type: 'rate_limit_error', code: 'rate_limited', message: 'slow down' } },
        { 'retry-after': '99999999999999999' },
      );
    if (url.pathname === '/v1/raw') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(RAW_TEXT);
    }
    if (url.pathname === '/v1/raw.json') return json(res, 200, { text: RAW_TEXT });
    json(res, 404, { error: { type: 'not_found_error', code: 'resource_missing', message: 'no such thing' } });
  });
});
afterAll(() => server.close());
const orc = (args: string[], tty = false) =>
  runOrc(args, { env: { ORC_BASE_URL: server.url, ORC_API_KEY: KEY }, tty: { stdout: tty, stderr: tty } });

describe('pages that never end', () => {
  it('a cursor that comes again stops `run list --all` and `api --paginate` with exit 1 and says why', async () => {
    for (const args of [
      ['run', 'list', '--all', '--json'],
      ['api', 'GET', '/v1/runs', '--paginate'],
    ]) {
      pages = 0;
      const r = await orc(args);
      expect(r.exitCode, args.join(' ')).toBe(1);
      // Under --json the same words, as the message of the one JSON error.
      const said = args.includes('--json') ? JSON.parse(r.stderr).error.message : r.stderr;
      expect(said).toContain('the pages of /v1/runs do not end: the cursor "c1" came again on page 3');
      expect(pages).toBe(3);
    }
  });

  it('a page with nothing on it that says there is more stops the walk too', async () => {
    pages = 0;
    const r = await orc(['webhook', 'list', '--json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('page 1 was empty yet said there is more');
    expect(pages).toBe(1);
  });
});

it('a Retry-After no date can hold is clamped: exit 3 saying when, never a RangeError', async () => {
  const r = await orc(['run', 'get', 'run_later']);
  expect(r.exitCode).toBe(3);
  expect(r.stderr).toMatch(/the service asks to retry in 8760 h, after \d{4}-/);
  expect(r.stderr).not.toContain('RangeError');
});

describe('orc api and the terminal', () => {
  it('at a terminal every byte from the service is sanitised; piped, the body is passed on byte-exact', async () => {
    for (const path of ['/v1/raw', '/v1/raw.json']) {
      const shown = await orc(['api', 'GET', path], true);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('evil');
      expect(shown.stdout).not.toMatch(/[\u001b\u0007\u202e\u200e\u200f\u061c]/);
    }
    const piped = await orc(['api', 'GET', '/v1/raw']);
    expect(piped.stdout).toBe(RAW_TEXT.replace(/\n$/, ''));
  });
});

describe('profile names', () => {
  it('--profile __proto__ or constructor is "no profile named …" (exit 4), not a property of every object', async () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const r = await runOrc(['run', 'list', '--profile', name]);
      expect(r.exitCode, name).toBe(4);
      expect(r.stderr).toContain(`no profile named "${name}" (from --profile)`);
    }
  });
});
