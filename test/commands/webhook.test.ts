// `orc webhook add|list|get|remove|deliveries|redeliver|verify` in process, against a sandbox on port 0 behind
// a fault proxy (to see what was sent), with a receiver of the tests' own for the deliveries.
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useProxiedSandbox } from '../helpers/proxied.js';
import { runOrc } from '../helpers/run.js';
import { until } from '../helpers/until.js';

const env = useProxiedSandbox({ stageMs: 20, retryBaseMs: 5 });
const orc = (args: string[], o: { input?: string } = {}) =>
  runOrc(args, { ...o, env: { ORC_BASE_URL: env.proxy.url } });

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}
let receiver: { url: string; got: Received[]; answer: number; close(): Promise<void> };
beforeAll(async () => {
  const got: Received[] = [];
  const state = { answer: 200 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(state.answer).end(state.answer >= 300 ? 'receiver says no' : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver = Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  });
});
afterAll(() => receiver.close());

const webhookPosts = () => env.proxy.seen.filter((r) => r.url.startsWith('/v1/webhooks'));

describe('orc webhook add', () => {
  it('checks the URL and the event kinds before sending anything, with "did you mean"', async () => {
    const cases: Array<[string[], string]> = [
      [['--url', 'https://example.com/h', '--events', 'run.acepted'], 'did you mean run.accepted?'],
      [['--url', 'https://example.com/h', '--events', 'gate_pending'], 'did you mean run.gate_pending?'],
      [['--url', 'https://example.com/h', '--events', 'run.accepted,*'], 'give it alone'],
      [['--url', 'http://example.com/h', '--events', '*'], '--url: plain http:// is only for this machine'],
      [['--url', 'ftp://example.com/h', '--events', '*'], '--url'],
      [['--url', 'not a url', '--events', '*'], '--url'],
      [['--url', 'https://u:p@example.com/h', '--events', '*'], 'user name or password'],
      [['--events', '*'], '--url is required'],
      [[], '--url and --events are required'],
    ];
    for (const [flags, said] of cases) {
      const r = await orc(['webhook', 'add', ...flags]);
      expect(r.exitCode, flags.join(' ')).toBe(2);
      expect(r.stderr, flags.join(' ')).toContain(said);
    }
    expect(webhookPosts()).toHaveLength(0);
  });

  it('prints the new webhook and its secret once, saying it will not be shown again; --json gives the whole answer', async () => {
    const r = await orc([
      'webhook',
      'add',
      '--url',
      'https://example.com/hooks/orc',
      '--events',
      'run.accepted, run.failed',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^id\s+wh_\S+$/m);
    expect(r.stdout).toMatch(/^events\s+run\.accepted, run\.failed$/m);
    const secret = /^secret\s+(whsec_\S+)$/m.exec(r.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(r.stderr).toContain('shown only now and cannot be shown again');
    const json = await orc(['webhook', 'add', '--url', 'http://127.0.0.1:9/x', '--events', '*', '--json']);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ url: 'http://127.0.0.1:9/x', events: ['*'], status: 'enabled' });
    expect(doc.secret).toMatch(/^whsec_/);
    // Never again: list and get show no secret.
    const id = /^id\s+(wh_\S+)$/m.exec(r.stdout)![1]!;
    for (const args of [
      ['webhook', 'list'],
      ['webhook', 'list', '--json'],
      ['webhook', 'get', id],
      ['webhook', 'get', id, '--json'],
    ]) {
      const shown = await orc(args);
      expect(shown.exitCode, args.join(' ')).toBe(0);
      expect(shown.stdout, args.join(' ')).toContain(id);
      expect(shown.stdout, args.join(' ')).not.toContain('whsec_');
    }
  });
});

describe('orc webhook remove', () => {
  it('needs --yes without a terminal, then removes it; an unknown id is exit 3', async () => {
    const created = (await env.sb.call('POST', '/v1/webhooks', { url: 'https://example.com/gone', events: ['*'] }))
      .body;
    const asked = await orc(['webhook', 'remove', created.id]);
    expect(asked.exitCode).toBe(2);
    expect(asked.stderr).toContain('--yes');
    expect((await env.sb.call('GET', `/v1/webhooks/${created.id}`)).status).toBe(200);
    const removed = await orc(['webhook', 'remove', created.id, '--yes', '--json']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ id: created.id, deleted: true });
    expect((await env.sb.call('GET', `/v1/webhooks/${created.id}`)).status).toBe(404);
    const again = await orc(['webhook', 'get', created.id]);
    expect(again.exitCode).toBe(3);
  });
});

describe('deliveries', () => {
  it('lists them with event, status, attempts and last code; --status filters; redeliver queues one again afresh', async () => {
    receiver.answer = 500;
    const hook = (await env.sb.call('POST', '/v1/webhooks', { url: receiver.url, events: ['run.created'] })).body;
    await env.sb.createRun('Deliveries');
    // 8 attempts at 500, then failed.
    await until(() => receiver.got.filter((g) => g.headers['x-service-delivery-id']).length >= 8, 'eight attempts');
    const listFailed = async () =>
      JSON.parse((await orc(['webhook', 'deliveries', hook.id, '--status', 'failed', '--json'])).stdout) as any[];
    const failed = await until(
      async () => ((f) => f.length > 0 && f)(await listFailed()),
      'the delivery listed as failed',
    );
    expect(failed[0]).toMatchObject({
      event_type: 'run.created',
      status: 'failed',
      attempts: 8,
      last_status_code: 500,
      next_attempt_at: null,
    });
    const piped = await orc(['webhook', 'deliveries', hook.id]);
    expect(piped.stdout.split('\n')[0]!.split('\t')).toEqual([
      failed[0].id,
      'run.created',
      failed[0].event_id,
      'failed',
      '8',
      '500',
      '—',
      failed[0].created_at,
    ]);
    const none = await orc(['webhook', 'deliveries', hook.id, '--status', 'succeeded']);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no succeeded deliveries');

    receiver.answer = 200;
    const before = receiver.got.length;
    const asked = Date.now();
    const asJson = await orc(['webhook', 'redeliver', hook.id, failed[0].id, '--json']);
    expect(asJson.exitCode, asJson.stderr).toBe(0);
    const queued = JSON.parse(asJson.stdout);
    // Queued for now, not after the ninth step of the old backoff.
    expect(queued).toMatchObject({ id: failed[0].id, status: 'pending' });
    // (the sandbox runs on this process's clock: its "now" falls between the command's start and its end)
    expect(Date.parse(queued.next_attempt_at)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(queued.next_attempt_at)).toBeLessThanOrEqual(Date.now());
    const again = await orc(['webhook', 'redeliver', hook.id, failed[0].id]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(`delivery ${failed[0].id} (run.created) queued again`);
    await until(() => receiver.got.length > before, 'the redelivery');
    const latest = async () => JSON.parse((await orc(['webhook', 'deliveries', hook.id, '--json'])).stdout)[0];
    const done = await until(
      async () => ((d) => d.status === 'succeeded' && d)(await latest()),
      'the redelivery listed as succeeded',
    );
    // Attempts count on from the eight before; this round succeeded at its first.
    expect(done).toMatchObject({ id: failed[0].id, status: 'succeeded', last_status_code: 200 });
    expect(done.attempts).toBeGreaterThanOrEqual(9);
    const unknown = await orc(['webhook', 'redeliver', hook.id, 'dlv_nope']);
    expect(unknown.exitCode).toBe(3);
    expect(unknown.stderr).toContain('dlv_nope');
    await env.sb.call('DELETE', `/v1/webhooks/${hook.id}`);
  });
});

describe('orc webhook verify', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orc-verify-'));
  let delivery: Received;
  let secret: string;
  beforeAll(async () => {
    receiver.answer = 200;
    const hook = (await env.sb.call('POST', '/v1/webhooks', { url: receiver.url, events: ['run.created'] })).body;
    secret = hook.secret;
    const run = await env.sb.createRun('Verify me');
    await until(() => receiver.got.some((g) => g.body.includes(run.id)), 'the delivery');
    delivery = receiver.got.find((g) => g.body.includes(run.id))!;
    await env.sb.call('DELETE', `/v1/webhooks/${hook.id}`);
  });
  const header = () => String(delivery.headers['x-service-signature']);
  const t = () => Number(/t=(\d+)/.exec(header())![1]);
  const payload = (body: string) => {
    const file = join(dir, `body-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, body);
    return file;
  };

  it('accepts a real delivery, as an independent HMAC check does; the secret may come on stdin', async () => {
    const independent = createHmac('sha256', secret).update(`${t()}.${delivery.body}`).digest('hex');
    expect(header()).toContain(`v1=${independent}`);
    const r = await orc(
      ['webhook', 'verify', '--secret', '-', '--header', header(), '--payload-file', payload(delivery.body)],
      { input: `${secret}\n` },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('valid: signed with this secret');
    const fromStdin = await orc(
      ['webhook', 'verify', '--secret', secret, '--header', header(), '--payload-file', '-', '--json'],
      { input: delivery.body },
    );
    expect(fromStdin.exitCode).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ valid: true, timestamp: t() });
  });

  it('refuses with exit 3 and the reason: a tampered body, a wrong secret, an old timestamp, a malformed header', async () => {
    const cases: Array<[string[], string]> = [
      [
        [
          '--secret',
          secret,
          '--header',
          header(),
          '--payload-file',
          payload(delivery.body.replace('"run.created"', '"run.accepted"')),
        ],
        'no signature for this secret',
      ],
      [
        ['--secret', 'whsec_wrong', '--header', header(), '--payload-file', payload(delivery.body)],
        'no signature for this secret',
      ],
      [
        [
          '--secret',
          secret,
          '--header',
          header(),
          '--payload-file',
          payload(delivery.body),
          '--now',
          String(t() + 400),
        ],
        '400 s old, 100 s outside the tolerance of 300 s',
      ],
      [
        [
          '--secret',
          secret,
          '--header',
          header(),
          '--payload-file',
          payload(delivery.body),
          '--now',
          String(t() + 400),
          '--tolerance',
          '60',
        ],
        '340 s outside the tolerance of 60 s',
      ],
      [['--secret', secret, '--header', 'v1=abc', '--payload-file', payload(delivery.body)], 'malformed'],
    ];
    for (const [flags, said] of cases) {
      const r = await orc(['webhook', 'verify', ...flags]);
      expect(r.exitCode, said).toBe(3);
      expect(r.stderr, said).toContain(said);
    }
  });

  it('replays an old capture with --now, and accepts several v1 (secret rotation)', async () => {
    const body = '{"id":"evt_1","type":"run.created","run_id":"run_1","data":{},"created_at":"2026-01-01T00:00:00Z"}';
    const old = 1_767_225_600;
    const sign = (s: string) => createHmac('sha256', s).update(`${old}.${body}`).digest('hex');
    const rotated = `t=${old},v1=${sign('whsec_old')},v1=${sign('whsec_new')}`;
    for (const s of ['whsec_old', 'whsec_new']) {
      const r = await orc([
        'webhook',
        'verify',
        '--secret',
        s,
        '--header',
        rotated,
        '--payload-file',
        payload(body),
        '--now',
        String(old + 10),
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
    }
    const now = await orc([
      'webhook',
      'verify',
      '--secret',
      'whsec_new',
      '--header',
      rotated,
      '--payload-file',
      payload(body),
    ]);
    expect(now.exitCode).toBe(3);
    expect(now.stderr).toContain(`--now ${old}`);
  });

  it('names what is missing (exit 2), and will not read both from stdin', async () => {
    const missing = await orc(['webhook', 'verify', '--header', 't=1,v1=00']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--secret, --payload-file are required');
    const both = await orc(['webhook', 'verify', '--secret', '-', '--header', 't=1,v1=00', '--payload-file', '-']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('cannot both read stdin');
    const nofile = await orc([
      'webhook',
      'verify',
      '--secret',
      's',
      '--header',
      't=1,v1=00',
      '--payload-file',
      join(dir, 'nope'),
    ]);
    expect(nofile.exitCode).toBe(2);
    expect(nofile.stderr).toContain('--payload-file');
  });
});

describe('webhook listen before its webhook is registered', () => {
  it('refuses every delivery (503) until it knows the secret: one signed with an empty secret is never shown or forwarded', async () => {
    const { handServer, json } = await import('../helpers/server.js');
    const { createApi } = await import('../../src/api/index.js');
    const { listen } = await import('../../src/webhooks/listen.js');
    const { systemClock } = await import('../../src/lib/clock.js');
    const forged: number[] = [];
    const shown: string[] = [];
    const fake = await handServer((req, res) => {
      if (req.method === 'POST' && req.url === '/v1/webhooks') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', async () => {
          // While the creation is held, a delivery signed with '' reaches the listener's own address.
          const url = JSON.parse(body).url as string;
          const event = JSON.stringify({ id: 'evt_forged', type: 'run.accepted', run_id: 'run_x', data: {} });
          const t = Math.floor(Date.now() / 1000);
          const sig = createHmac('sha256', '').update(`${t}.${event}`).digest('hex');
          const r = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-signature': `t=${t},v1=${sig}` },
            body: event,
          });
          forged.push(r.status);
          json(res, 201, {
            id: 'wh_1',
            url,
            events: ['*'],
            secret: 'whsec_real',
            created_at: '2026-01-01T00:00:00Z',
            status: 'enabled',
          });
        });
        return;
      }
      if (req.method === 'DELETE') return json(res, 200, { id: 'wh_1', deleted: true });
      json(res, 200, { data: [], has_more: false, next_cursor: null });
    });
    const stop = new AbortController();
    const api = createApi({
      baseUrl: fake.url,
      apiKey: 'sk_test_hand_0123456789abcdef',
      userAgent: 'test',
      maxRetries: 0,
    });
    const running = listen(
      api,
      {
        host: '127.0.0.1',
        port: 0,
        events: ['*'] as never,
        configDir: mkdtempSync(join(tmpdir(), 'orc-listen-')),
        baseUrl: fake.url,
        clock: systemClock,
        signal: stop.signal,
        checkMs: 60_000,
        unreachableMs: 60_000,
      },
      {
        ready: () => stop.abort(),
        event: (raw) => shown.push(raw),
        duplicate: () => {},
        invalid: (reason) => shown.push(`invalid: ${reason}`),
        forwarded: () => {},
        notice: () => {},
      },
    );
    await running;
    await fake.close();
    expect(forged).toEqual([503]);
    expect(shown).toEqual([]);
  });
});

describe('webhook listen stopped after a long listen', () => {
  it('removes its webhook with a request of its own deadline, and says so once: two minutes in, it was refused at once', async () => {
    const { handServer, json } = await import('../helpers/server.js');
    const { createApi } = await import('../../src/api/index.js');
    const { listen } = await import('../../src/webhooks/listen.js');
    const { FakeClock } = await import('../helpers/clock.js');
    const clock = new FakeClock();
    const deleted: string[] = [];
    const fake = await handServer((req, res) => {
      if (req.method === 'POST')
        return json(res, 201, {
          id: 'wh_long',
          url: 'http://127.0.0.1/x',
          events: ['*'],
          secret: 'whsec_long',
          created_at: '2026-01-01T00:00:00Z',
          status: 'enabled',
        });
      if (req.method === 'DELETE') {
        deleted.push(req.url!);
        return json(res, 200, { id: 'wh_long', deleted: true });
      }
      json(res, 200, { data: [], has_more: false, next_cursor: null });
    });
    const stop = new AbortController();
    const notices: string[] = [];
    const api = createApi({ baseUrl: fake.url, apiKey: 'sk_test_hand_0123456789abcdef', userAgent: 'test', clock });
    const outcome = await listen(
      api,
      {
        host: '127.0.0.1',
        port: 0,
        events: ['*'] as never,
        configDir: mkdtempSync(join(tmpdir(), 'orc-listen-')),
        baseUrl: fake.url,
        clock,
        signal: stop.signal,
        checkMs: 3_600_000,
        unreachableMs: 7_200_000,
      },
      {
        ready: () => {
          clock.advance(10 * 60_000); // ten minutes of listening, no check due
          stop.abort();
        },
        event: () => {},
        duplicate: () => {},
        invalid: () => {},
        forwarded: () => {},
        notice: (line) => notices.push(line),
      },
    );
    await fake.close();
    expect(notices).toEqual([]);
    expect(deleted).toEqual(['/v1/webhooks/wh_long']);
    expect(outcome).toEqual({ removed: true });
  });
});

/** A listener forwarding to `appUrl`, each of `ids` delivered to it in turn: what it reported of each
 * forward, [event id, status, attempt, final], once the last event's forward is final. */
async function forwarded(appUrl: string, ids: string[]): Promise<Array<[string, number | null, number, boolean]>> {
  const { handServer, json } = await import('../helpers/server.js');
  const { createApi } = await import('../../src/api/index.js');
  const { listen } = await import('../../src/webhooks/listen.js');
  const { FakeClock } = await import('../helpers/clock.js');
  const { signatureHeader } = await import('../../src/contract/signature.js');
  const clock = new FakeClock({ autoMs: 10_000 });
  const fake = await handServer((req, res) => {
    if (req.method === 'POST')
      return json(res, 201, {
        id: 'wh_fwd',
        url: 'http://127.0.0.1/x',
        events: ['*'],
        secret: 'whsec_fwd',
        created_at: '2026-01-01T00:00:00Z',
        status: 'enabled',
      });
    if (req.method === 'DELETE') return json(res, 200, { id: 'wh_fwd', deleted: true });
    json(res, 200, { data: [], has_more: false, next_cursor: null });
  });
  const deliver = async (url: string) => {
    for (const id of ids) {
      const body = JSON.stringify({ id, type: 'run.accepted', run_id: 'run_x', data: {} });
      const headers = { 'content-type': 'application/json', 'x-service-signature': signatureHeader('whsec_fwd', body) };
      expect((await fetch(url, { method: 'POST', headers, body })).status).toBe(200);
    }
  };
  const stop = new AbortController();
  const results: Array<[string, number | null, number, boolean]> = [];
  const api = createApi({ baseUrl: fake.url, apiKey: 'sk_test_hand_0123456789abcdef', userAgent: 'test', clock });
  const running = listen(
    api,
    {
      host: '127.0.0.1',
      port: 0,
      events: ['*'] as never,
      forwardTo: `${appUrl}/hook`,
      configDir: mkdtempSync(join(tmpdir(), 'orc-listen-')),
      baseUrl: fake.url,
      clock,
      signal: stop.signal,
      checkMs: 3_600_000,
      unreachableMs: 7_200_000,
    },
    {
      ready: ({ localUrl }) => void deliver(localUrl),
      event: () => {},
      duplicate: () => {},
      invalid: () => {},
      forwarded: (e, r) => results.push([e.id, r.status, r.attempt, r.final]),
      notice: () => {},
    },
  );
  await until(() => results.some(([id, , , final]) => id === ids.at(-1) && final), 'the last event forwarded');
  stop.abort();
  await running;
  await fake.close();
  return results;
}

describe('webhook listen --forward-to, retried by the one retry policy', () => {
  it('forwards again when the app answers 429 (busy), as a 5xx; a 400 is final at once', async () => {
    const { handServer } = await import('../helpers/server.js');
    const answers = [429, 200, 400];
    const app = await handServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answers.shift() ?? 200).end('app says'));
    });
    const results = await forwarded(app.url, ['evt_busy', 'evt_bad']);
    await app.close();
    expect(results).toEqual([
      ['evt_busy', 429, 1, false],
      ['evt_busy', 200, 2, true],
      ['evt_bad', 400, 1, true],
    ]);
  });

  it('tries an app that refuses the connection four times in all, each attempt reported', async () => {
    const { handServer } = await import('../helpers/server.js');
    const gone = await handServer(() => {});
    await gone.close();
    const results = await forwarded(gone.url, ['evt_nobody']);
    expect(results).toEqual([1, 2, 3, 4].map((n) => ['evt_nobody', null, n, n === 4]));
  });

  it('tries again an app whose answer is no HTTP at all (an error the API client would not retry)', async () => {
    const { createServer } = await import('node:net');
    const sockets = new Set<import('node:net').Socket>();
    const garbled = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.end('nonsense\r\n\r\n');
    });
    await new Promise<void>((r) => garbled.listen(0, '127.0.0.1', r));
    try {
      const { port } = garbled.address() as import('node:net').AddressInfo;
      const results = await forwarded(`http://127.0.0.1:${port}/hook`, ['evt_garbled']);
      expect(results).toEqual([1, 2, 3, 4].map((n) => ['evt_garbled', null, n, n === 4]));
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => garbled.close(r));
    }
  });
});
