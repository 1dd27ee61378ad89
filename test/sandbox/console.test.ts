// The web console's door (src/sandbox/console.ts): a one-time link becomes an HttpOnly, SameSite=Strict
// session; the key never reaches the page; another Host (DNS rebinding), another origin, or a change
// without the CSRF token is refused. Plain HTTP with the headers a browser (or an attacker) would send.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exactly these headers (fetch will not let a test set Host). */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${sb.url}${path}`,
      { method, headers: { host: `127.0.0.1:${sb.port}`, ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function link(): Promise<string> {
  const r = await sb.call('POST', '/_sandbox/console');
  expect(r.status).toBe(201);
  expect(Date.parse(r.body.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
  return r.body.url;
}

/** Signs in as a browser would: the link once, then the cookie, and the session's token from the fragment
 * of the redirect (where the page takes it from). */
async function signIn(): Promise<{ cookie: string; csrf: string; page: string }> {
  const url = new URL(await link());
  const login = await raw('GET', url.pathname + url.search);
  expect(login.status).toBe(303);
  const csrf = /^\/console\/#csrf=([\w-]{30,})$/.exec(String(login.headers.location))?.[1];
  expect(csrf).toBeTruthy();
  const setCookie = String(login.headers['set-cookie']);
  expect(setCookie).toMatch(new RegExp(`^orc_console_${sb.port}=[\\w-]{40,}; HttpOnly; SameSite=Strict; Path=/$`));
  const cookie = setCookie.split(';')[0]!;
  const page = await raw('GET', '/console/', { cookie });
  expect(page.status).toBe(200);
  return { cookie, csrf: csrf!, page: page.body };
}

describe('the console link', () => {
  it('works once: a second use, a made-up token or no token gets no session', async () => {
    const url = new URL(await link());
    expect(url.origin).toBe(sb.url);
    expect((await raw('GET', url.pathname + url.search)).status).toBe(303);
    const again = await raw('GET', url.pathname + url.search);
    expect(again.status).toBe(403);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.body).toContain('orc sandbox console');
    expect((await raw('GET', '/console/login?token=made-up')).status).toBe(403);
    expect((await raw('GET', '/console/login')).status).toBe(403);
  });

  it('is needed for every page and asset: without a session the console says how to get one', async () => {
    for (const path of ['/console/', '/console/runs/run_x', '/console/assets/console.js']) {
      const r = await raw('GET', path);
      expect(r.status, path).toBe(401);
      expect(r.body).toContain('orc sandbox console');
      expect(r.body).not.toContain('csrf-token');
    }
  });

  it('tells the methods of its pages without a key: 405 with Allow, not 401 (as files do)', async () => {
    for (const [method, path] of [
      ['POST', '/console/'],
      ['DELETE', '/console/runs'],
      ['PUT', '/files/run_x/ipa/app.ipa'],
    ] as const) {
      const r = await raw(method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD');
      expect(JSON.parse(r.body).error.code).toBe('method_not_allowed');
    }
  });

  it('is minted only with the key', async () => {
    expect((await raw('POST', '/_sandbox/console')).status).toBe(401);
  });
});

describe('a session', () => {
  it('serves the page and its scripts, none of which holds the key, with a strict content policy', async () => {
    const { cookie, page } = await signIn();
    expect(page).not.toContain(KEY);
    const script = await raw('GET', '/console/assets/console.js', { cookie });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.body).not.toContain(KEY);
    expect(script.body).not.toContain('sk_test_');
    const home = await raw('GET', '/console/', { cookie });
    expect(home.headers['content-security-policy']).toContain("script-src 'self'");
    expect(home.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(home.headers['x-content-type-options']).toBe('nosniff');
    expect(home.headers['referrer-policy']).toBe('no-referrer');
    expect((await raw('GET', '/console/assets/..%2F..%2Fpackage.json', { cookie })).status).toBe(404);
  });

  it('stands for the key on /v1 and /_sandbox, for reading, from the page itself', async () => {
    const { cookie, csrf } = await signIn();
    const run = await sb.createRun('Seen from the console');
    const list = await raw('GET', '/v1/runs', {
      cookie,
      origin: sb.url,
      'sec-fetch-site': 'same-origin',
      'x-orc-csrf': csrf,
    });
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body).data.map((r: { id: string }) => r.id)).toContain(run.id);
    expect((await raw('GET', '/_sandbox/clock', { cookie, 'x-orc-csrf': csrf })).status).toBe(200);
    // An event stream (EventSource sends no header) gives the token in the query.
    const status = (q: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${sb.url}/v1/runs/${run.id}/events${q}`,
          { headers: { host: `127.0.0.1:${sb.port}`, cookie, accept: 'text/event-stream' } },
          (res) => {
            resolve(res.statusCode!);
            req.destroy();
          },
        );
        req.on('error', reject).end();
      });
    expect(await status(`?csrf=${csrf}`)).toBe(200);
    expect(await status('')).toBe(403);
    // Only there: a JSON route takes the token in its header, never in a URL that logs and history keep.
    const inUrl = await raw('GET', `/_sandbox/export?csrf=${csrf}`, { cookie });
    expect(inUrl.status).toBe(403);
    expect(JSON.parse(inUrl.body).error.code).toBe('csrf_token_invalid');
  });

  it('refuses another Host: a DNS-rebinding page reaches the port under its own name', async () => {
    const { cookie, csrf } = await signIn();
    const rebound = await raw('GET', '/v1/runs', { cookie, 'x-orc-csrf': csrf, host: `attacker.example:${sb.port}` });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.code).toBe('cross_origin_refused');
    const page = await raw('GET', '/console/', { cookie, host: `attacker.example:${sb.port}` });
    expect(page.status).toBe(403);
    expect(page.body).not.toContain('csrf-token');
    const url = new URL(await link());
    expect((await raw('GET', url.pathname + url.search, { host: `attacker.example:${sb.port}` })).status).toBe(403);
    // localhost is the same machine: allowed.
    expect((await raw('GET', '/v1/runs', { cookie, 'x-orc-csrf': csrf, host: `localhost:${sb.port}` })).status).toBe(
      200,
    );
  });

  it('refuses another origin, and a change without the CSRF token: nothing is done', async () => {
    const { cookie, csrf } = await signIn();
    const before = (await sb.call('GET', '/v1/runs?limit=100')).body.data.length;
    const body = JSON.stringify({ mode: 'idea', idea: { pitch: 'Forged', audience: 'x', monetization: 'free' } });
    const json = { 'content-type': 'application/json', 'idempotency-key': 'k-forged' };
    const attempts: Array<[Record<string, string>, string]> = [
      [{ cookie, origin: 'http://attacker.example', 'x-orc-csrf': csrf, ...json }, 'cross_origin_refused'],
      [{ cookie, origin: sb.url, 'sec-fetch-site': 'cross-site', 'x-orc-csrf': csrf, ...json }, 'cross_origin_refused'],
      [{ cookie, origin: sb.url, ...json }, 'csrf_token_invalid'],
      [{ cookie, origin: sb.url, 'x-orc-csrf': 'x'.repeat(csrf.length), ...json }, 'csrf_token_invalid'],
      [{ cookie, 'x-orc-csrf': csrf, ...json }, 'cross_origin_refused'],
    ];
    for (const [headers, code] of attempts) {
      const r = await raw('POST', '/v1/runs', headers, body);
      expect(r.status, code).toBe(403);
      expect(JSON.parse(r.body).error.code).toBe(code);
    }
    expect((await sb.call('GET', '/v1/runs?limit=100')).body.data.length).toBe(before);
    const ok = await raw('POST', '/v1/runs', { cookie, origin: sb.url, 'x-orc-csrf': csrf, ...json }, body);
    expect(ok.status).toBe(201);
  });

  it('needs the session’s token, which no answer to the cookie alone holds: a cookie replayed from another port reads and changes nothing', async () => {
    // What a server on another port of 127.0.0.1 gets from the browser is the cookie; with it alone:
    const url = new URL(await link());
    const cookie = String((await raw('GET', url.pathname + url.search)).headers['set-cookie']).split(';')[0]!;
    for (const [method, path] of [
      ['GET', '/_sandbox/export'],
      ['GET', '/v1/runs'],
      ['POST', '/_sandbox/reset'],
    ] as const) {
      const r = await raw(method, path, { cookie, origin: sb.url });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(JSON.parse(r.body).error.code).toBe('csrf_token_invalid');
    }
    const { cookie: mine, csrf } = await signIn();
    const page = await raw('GET', '/console/', { cookie: mine });
    expect(page.status).toBe(200);
    expect(page.body).not.toContain(csrf);
    const script = await raw('GET', '/console/assets/console.js', { cookie: mine });
    expect(script.body).not.toContain(csrf);
    expect((await raw('GET', '/_sandbox/export', { cookie: mine, 'x-orc-csrf': csrf })).status).toBe(200);
  });

  it('is one sandbox’s: a cookie of another port, or a session the sandbox does not know, is refused', async () => {
    const { cookie } = await signIn();
    const other = await startTestSandbox();
    try {
      const r = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${other.url}/v1/runs`,
          {
            headers: {
              cookie: cookie.replace(`orc_console_${sb.port}`, `orc_console_${other.port}`),
              host: `127.0.0.1:${other.port}`,
            },
          },
          (res) => (res.resume(), resolve(res.statusCode!)),
        );
        req.on('error', reject);
        req.end();
      });
      expect(r).toBe(401);
      expect((await other.call('GET', '/v1/runs')).status).toBe(200); // its key still works
    } finally {
      await other.close();
    }
    expect((await raw('GET', '/v1/runs', { cookie: `orc_console_${sb.port}=forged` })).status).toBe(401);
  });
});

describe('the stream of every run (GET /_sandbox/events)', () => {
  it('carries each run’s events as they happen, logs only when asked, and says when the sandbox was reset', async () => {
    const res = await fetch(`${sb.url}/_sandbox/events`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const run = await sb.createRun('Firehose');
    const decoder = new TextDecoder();
    const readUntil = (seen: (t: string) => boolean, what: string) =>
      until(
        async () => seen(text) || ((text += decoder.decode((await reader.read()).value, { stream: true })), false),
        what,
        { seen: () => text },
      );
    // (runs of the tests before this one may still be moving: this run's own gate is waited for)
    const ownGate = new RegExp(`event: run\\.gate_pending\ndata: [^\n]*"run_id":"${run.id}"`);
    await readUntil((t) => ownGate.test(t), 'the gate of this run on the stream');
    expect(text).toContain(`"run_id":"${run.id}"`);
    expect(text).toMatch(/event: run\.created\n/);
    expect(text).not.toMatch(/event: log\n/);
    await sb.call('POST', '/_sandbox/reset');
    await readUntil((t) => t.includes('sandbox.reset'), 'sandbox.reset on the stream');
    expect(text).toContain('event: sandbox.reset');
    await reader.cancel();
  });
});
