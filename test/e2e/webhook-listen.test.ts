// `orc webhook listen`, the built orc as a user runs it, against a sandbox on port 0 (behind a fault proxy)
// and an app of the tests' own that it forwards to: verified, shown, forwarded with the original signature,
// duplicates dropped, an app's 500 shown and retried, and the webhook removed on Ctrl-C, or by the next
// listener after a SIGKILL.
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigDir, orc } from '../helpers/cli.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { quickClock, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

interface Got {
  headers: IncomingMessage['headers'];
  body: string;
}
let sb: TestSandbox;
let proxy: FaultProxy;
let app: { url: string; got: Got[]; answer: (body: string, n: number) => number; close(): Promise<void> };
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 40, retryBaseMs: 20, clock: quickClock() });
  proxy = await startFaultProxy(sb.url);
  const got: Got[] = [];
  const state = { answer: (_b: string, _n: number) => 200 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      const status = state.answer(body, got.length);
      res
        .writeHead(status, { 'content-type': 'text/plain' })
        .end(status >= 300 ? 'TypeError: cannot read "gate"\n    at handler (app.js:12)\n' : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  app = Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    got,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  });
});
afterAll(async () => {
  await app.close();
  await proxy.close();
  await sb.close();
});

/** `orc webhook listen …` started, resolved once it says it is ready, with what it said. */
async function startListener(args: string[], configDir = freshConfigDir(), env: Record<string, string> = {}) {
  const proc = orc(['webhook', 'listen', ...args], {
    configDir,
    env: { ORC_BASE_URL: proxy.url, ORC_LISTEN_CHECK_INTERVAL: '0.2', ...env },
    timeout: 60_000,
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c));
  proc.stderr!.on('data', (c: Buffer) => (err += c));
  await until(() => /Signing secret: (whsec_\S+)/.test(err) || proc.exitCode !== null, 'the listener to be ready');
  const ready = /Ready: webhook (wh_\S+) sends .* to (\S+)/.exec(err);
  if (!ready) throw new Error(`the listener did not start: ${err}`);
  return {
    proc,
    configDir,
    webhookId: ready[1]!,
    url: ready[2]!,
    secret: /Signing secret: (whsec_\S+)/.exec(err)![1]!,
    out: () => out,
    err: () => err,
  };
}
const webhookExists = async (id: string) => (await sb.call('GET', `/v1/webhooks/${id}`)).status === 200;
const eventsOf = (got: Got[]) =>
  got.map((g) => JSON.parse(g.body) as { id: string; type: string; run_id: string; data: any });

describe('orc webhook listen', () => {
  it('verifies, shows and forwards each event with its original body and signature; an app 500 is shown and retried', async () => {
    app.got.length = 0;
    let failedOnce = false;
    app.answer = (body) => {
      if (!failedOnce && body.includes('run.gate_pending')) {
        failedOnce = true;
        return 500;
      }
      return 200;
    };
    const l = await startListener(['--events', 'run.created,run.gate_pending', '--forward-to', app.url]);
    try {
      expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/orc-listen$/);
      const run = await sb.createRun('Listen to me');
      await until(
        () => eventsOf(app.got).filter((e) => e.run_id === run.id && e.type === 'run.gate_pending').length >= 2,
        'the gate event, retried',
      );
      const mine = app.got.filter((g) => g.body.includes(run.id));
      expect(eventsOf(mine).map((e) => e.type)).toEqual(['run.created', 'run.gate_pending', 'run.gate_pending']);
      for (const g of mine) {
        // The app's own check passes: the service's signature over the original bytes.
        const header = String(g.headers['x-service-signature']);
        const t = /t=(\d+)/.exec(header)![1];
        expect(header).toContain(`v1=${createHmac('sha256', l.secret).update(`${t}.${g.body}`).digest('hex')}`);
        expect(g.headers['x-service-delivery-id']).toMatch(/^dlv_/);
        expect(g.headers.authorization).toBeUndefined();
      }
      await until(() => /<-- 200 POST .* attempt 2/.test(l.err()), 'the retried forward to be reported');
      const gate = eventsOf(mine)[1]!;
      expect(l.out()).toMatch(new RegExp(`--> run\\.created ${run.id} \\[evt_`));
      expect(l.out()).toMatch(new RegExp(`--> run\\.gate_pending ${run.id} idea \\[${gate.id}\\]`));
      expect(l.err()).toContain(`<-- 500 POST ${app.url} [${gate.id}]`);
      expect(l.err()).toContain('TypeError: cannot read "gate"');
      expect(l.out()).not.toContain('\x1b');
    } finally {
      l.proc.kill('SIGINT');
      await l.proc;
    }
  }, 40_000);

  it('drops a duplicate delivery (a redelivery of the same event), and answers a bad signature 400', async () => {
    app.got.length = 0;
    app.answer = () => 200;
    const l = await startListener(['--events', 'run.created', '--forward-to', app.url]);
    try {
      const run = await sb.createRun('Twice');
      await until(() => app.got.some((g) => g.body.includes(run.id)), 'the first delivery');
      const deliveries = (await sb.call('GET', `/v1/webhooks/${l.webhookId}/deliveries`)).body.data;
      const first = deliveries.find((d: any) => d.status === 'succeeded');
      expect((await sb.call('POST', `/v1/webhooks/${l.webhookId}/deliveries/${first.id}:redeliver`)).status).toBe(200);
      await until(() => l.err().includes('a duplicate of'), 'the duplicate to be reported');
      expect(app.got.filter((g) => g.body.includes(run.id))).toHaveLength(1);
      expect(
        l
          .out()
          .split('\n')
          .filter((line) => line.includes(run.id)),
      ).toHaveLength(1);

      const forged = await fetch(l.url, {
        method: 'POST',
        body: '{"id":"evt_forged","type":"run.accepted","run_id":"run_x","data":{}}',
        headers: { 'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      });
      expect(forged.status).toBe(400);
      await until(() => l.err().includes('refused a delivery with 400'), 'the forged delivery to be reported');
      expect(l.out()).not.toContain('evt_forged');
      expect(app.got.some((g) => g.body.includes('evt_forged'))).toBe(false);
    } finally {
      l.proc.kill('SIGINT');
      await l.proc;
    }
  }, 40_000);

  it('--json prints each event as one line of NDJSON on stdout', async () => {
    const l = await startListener(['--events', 'run.created', '--json']);
    try {
      const run = await sb.createRun('As JSON');
      await until(() => l.out().includes(run.id), 'the event');
      const lines = l.out().trim().split('\n');
      const event = JSON.parse(lines.find((line) => line.includes(run.id))!);
      expect(event).toMatchObject({ type: 'run.created', run_id: run.id });
      expect(event.id).toMatch(/^evt_/);
    } finally {
      l.proc.kill('SIGINT');
      await l.proc;
    }
  }, 30_000);

  it('removes its webhook on Ctrl-C (exit 130) and on SIGTERM; after a SIGKILL the next listener removes it', async () => {
    const configDir = freshConfigDir();
    const a = await startListener([], configDir);
    expect(await webhookExists(a.webhookId)).toBe(true);
    a.proc.kill('SIGINT');
    const ended = await a.proc;
    expect(ended.exitCode).toBe(130);
    expect(ended.stderr).toContain(`webhook ${a.webhookId} was removed`);
    expect(await webhookExists(a.webhookId)).toBe(false);

    const b = await startListener([], configDir);
    b.proc.kill('SIGTERM');
    await b.proc;
    expect(await webhookExists(b.webhookId)).toBe(false);

    const killed = await startListener([], configDir);
    killed.proc.kill('SIGKILL');
    await killed.proc;
    expect(await webhookExists(killed.webhookId)).toBe(true);
    const next = await startListener([], configDir);
    try {
      expect(next.err()).toContain(
        `Removed webhook ${killed.webhookId}, left behind by a listener that is no longer running`,
      );
      expect(await webhookExists(killed.webhookId)).toBe(false);
      expect(await webhookExists(next.webhookId)).toBe(true);
    } finally {
      next.proc.kill('SIGINT');
      await next.proc;
    }
  }, 40_000);

  it('registers again when its webhook is removed elsewhere, and exits 1 when the service stops accepting it', async () => {
    const l = await startListener([]);
    try {
      await sb.call('DELETE', `/v1/webhooks/${l.webhookId}`);
      await until(() => l.err().includes('was removed elsewhere; registering a new one'), 'the new registration');
      await until(() => (l.err().match(/Ready: webhook/g) ?? []).length === 2, 'the second ready line');
      const again = /Ready: webhook (wh_\S+)/g;
      const ids = [...l.err().matchAll(again)].map((m) => m[1]);
      expect(await webhookExists(ids[1]!)).toBe(true);
      proxy.plan = (req) =>
        req.method === 'GET' && req.url.startsWith('/v1/webhooks/')
          ? {
              kind: 'answer',
              status: 401,
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                error: { type: 'authentication_error', code: 'invalid_api_key', message: 'the key was revoked' },
              }),
            }
          : { kind: 'pass' };
      const ended = await l.proc;
      expect(ended.exitCode).toBe(1);
      expect(ended.stderr).toContain('the service refuses the key now');
      proxy.plan = () => ({ kind: 'pass' });
      expect(await webhookExists(ids[1]!)).toBe(false);
    } finally {
      proxy.plan = () => ({ kind: 'pass' });
      l.proc.kill('SIGKILL');
    }
  }, 40_000);

  it('says so when the service has been unreachable for a while', async () => {
    const down = await startFaultProxy(sb.url);
    const l = await startListener([], freshConfigDir(), { ORC_BASE_URL: down.url });
    try {
      down.plan = () => ({
        kind: 'answer',
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '0' },
        body: JSON.stringify({ error: { type: 'api_error', code: 'unavailable', message: 'down for maintenance' } }),
      });
      await until(() => l.err().includes('the service has been unreachable for'), 'the unreachable notice', 30_000);
      down.plan = () => ({ kind: 'pass' });
      await until(() => l.err().includes('the service answers again'), 'the recovery notice', 30_000);
    } finally {
      l.proc.kill('SIGINT');
      await l.proc;
      await down.close();
    }
  }, 60_000);

  it('refuses bad flags before registering anything (exit 2)', async () => {
    const before = (await sb.call('GET', '/v1/webhooks?limit=100')).body.data.length;
    for (const [args, said] of [
      [['--events', 'run.acepted'], 'did you mean run.accepted?'],
      [['--forward-to', 'localhost:3000'], '--forward-to'],
      [['--public-url', 'http://example.com/x'], '--public-url'],
      [['--port', '70000'], '--port'],
      [['--host', '0.0.0.0'], '--host'],
    ] as const) {
      const r = await orc(['webhook', 'listen', ...args], { env: { ORC_BASE_URL: proxy.url } });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(said);
    }
    expect((await sb.call('GET', '/v1/webhooks?limit=100')).body.data.length).toBe(before);
  }, 30_000);
});

describe('orc webhook add … remove, the built orc end to end', () => {
  it('adds a webhook, sees a delivery arrive and verifies it, lists, redelivers and removes', async () => {
    app.got.length = 0;
    app.answer = () => 200;
    const env = { ORC_BASE_URL: proxy.url };
    const added = await orc(['webhook', 'add', '--url', app.url, '--events', 'run.created', '--json'], { env });
    expect(added.exitCode, added.stderr).toBe(0);
    const hook = JSON.parse(added.stdout);
    const run = await sb.createRun('End to end');
    await until(() => app.got.some((g) => g.body.includes(run.id)), 'the delivery');
    const got = app.got.find((g) => g.body.includes(run.id))!;
    const dir = mkdtempSync(join(tmpdir(), 'orc-wh-e2e-'));
    writeFileSync(join(dir, 'body.json'), got.body);
    const header = String(got.headers['x-service-signature']);
    const t = /t=(\d+)/.exec(header)![1];
    expect(header).toContain(`v1=${createHmac('sha256', hook.secret).update(`${t}.${got.body}`).digest('hex')}`);
    const verified = await orc(
      ['webhook', 'verify', '--secret', '-', '--header', header, '--payload-file', join(dir, 'body.json')],
      { env, input: hook.secret },
    );
    expect(verified.exitCode, verified.stderr).toBe(0);

    const list = await orc(['webhook', 'list'], { env });
    expect(list.stdout).toContain(hook.id);
    const got1 = await orc(['webhook', 'get', hook.id, '--json'], { env });
    expect(JSON.parse(got1.stdout)).toMatchObject({ id: hook.id, url: app.url, events: ['run.created'] });
    const deliveries = JSON.parse((await orc(['webhook', 'deliveries', hook.id, '--json'], { env })).stdout);
    const mine = deliveries.find((d: any) => d.status === 'succeeded');
    expect(mine).toMatchObject({ event_type: 'run.created', attempts: 1, last_status_code: 200 });
    const before = app.got.length;
    const again = await orc(['webhook', 'redeliver', hook.id, mine.id], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    await until(() => app.got.length > before, 'the redelivery');
    expect(JSON.parse(app.got[app.got.length - 1]!.body).id).toBe(JSON.parse(got.body).id);
    const removed = await orc(['webhook', 'remove', hook.id, '--yes'], { env });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await webhookExists(hook.id)).toBe(false);
  }, 40_000);
});
