// `orc verify --write` (writeChecks): clean against the in-process sandbox, everything it made undone; a replay
// answered 200 without Idempotent-Replayed and deliveries that do not verify with the secret given are named;
// what it made is undone when a check fails or the user presses Ctrl-C; a live key needs --live --yes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/api/index.js';
import type { Divergence, Probe, Skipped } from '../../src/commands/verify/types.js';
import { writeChecks } from '../../src/commands/verify/write.js';
import { UsageError } from '../../src/exit/errors.js';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { runOrc } from '../helpers/run.js';
import { handServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

interface Found {
  checked: string[];
  divergences: Divergence[];
  skipped: Skipped[];
  said: string[];
  warned: string[];
}

/** A probe as the command builds one: the raw layer, no retries, findings collected. */
function probeOf(baseUrl: string, apiKey: string, hooks: { raw?: (method: string, path: string) => void } = {}) {
  const api = createApi({ baseUrl, apiKey, userAgent: 'test', maxRetries: 0 });
  const found: Found = { checked: [], divergences: [], skipped: [], said: [], warned: [] };
  const probe: Probe & { found: Found; onSay?: (text: string) => void } = {
    api,
    baseUrl,
    found,
    raw: async (method, path, o = {}) => {
      hooks.raw?.(method, path);
      return api.http.raw({
        method,
        target: path,
        anyStatus: true,
        retries: 0,
        ...(o.body !== undefined ? { body: { json: o.body } } : {}),
        ...(o.headers ? { headers: o.headers } : {}),
      });
    },
    checked: (op) => found.checked.push(op),
    diverge: (d) => found.divergences.push(d),
    skip: (operation, why) => found.skipped.push({ operation, why }),
    say: (text) => {
      found.said.push(text);
      probe.onSay?.(text);
    },
    warn: (text) => found.warned.push(text),
  };
  return probe;
}

let sb: TestSandbox;
beforeAll(async () => {
  // Time flows (deliveries are retried on it), but no run moves past its first stage while a test looks.
  sb = await startSandbox({ stageMs: 3_600_000, retryBaseMs: 20 });
});
afterAll(() => sb.stop());

let proxy: FaultProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  proxy = null;
  await sb.reset();
});

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
const runs = () => all(sb.client.runs.list());
const webhooks = () => all(sb.client.webhooks.list());

describe('orc verify --write against the sandbox', () => {
  it('is clean: a run created, replayed and canceled, a webhook signed, retried and removed', async () => {
    const probe = probeOf(sb.url, sb.apiKey);
    await writeChecks(probe, { live: false });
    expect(probe.found.divergences).toEqual([]);
    expect(probe.found.skipped).toEqual([]);
    expect(probe.found.checked).toEqual(
      expect.arrayContaining([
        'POST /v1/runs',
        'POST /v1/runs (replayed: the same Idempotency-Key and body)',
        'POST /v1/runs/{id}/cancel',
        'POST /v1/webhooks',
        'WEBHOOK run.created',
        'WEBHOOK run.created (retried after a 500)',
        'WEBHOOK run.canceled',
        'DELETE /v1/webhooks/{id}',
      ]),
    );
    const made = await runs();
    expect(made.map((r) => r.status)).toEqual(['canceled']); // one run: the replay made no second
    expect(await webhooks()).toEqual([]);
  });

  it('names a replay answered 200 without Idempotent-Replayed', async () => {
    proxy = await startFaultProxy(sb.url);
    let creates = 0;
    proxy.plan = (req) =>
      req.method === 'POST' && req.url === '/v1/runs' && ++creates === 2
        ? {
            kind: 'rewrite',
            rewrite: (b) => b,
            status: 200,
            headers: ({ 'idempotent-replayed': _, ...rest }) => rest,
          }
        : { kind: 'pass' };
    const probe = probeOf(proxy.url, sb.apiKey);
    await writeChecks(probe, { live: false });
    const replay = 'POST /v1/runs (replayed: the same Idempotency-Key and body)';
    expect(probe.found.divergences).toEqual([
      expect.objectContaining({ operation: replay, path: 'status', expected: '201' }),
      { operation: replay, path: 'header Idempotent-Replayed', expected: '"true"', got: 'nothing' },
    ]);
    expect((await runs()).map((r) => r.status)).toEqual(['canceled']);
  });

  it('names a write answer without X-Request-Id, as the read-only checks do (one header check for both)', async () => {
    proxy = await startFaultProxy(sb.url);
    proxy.plan = (req) =>
      req.method === 'DELETE'
        ? { kind: 'rewrite', rewrite: (b) => b, headers: ({ 'x-request-id': _, ...rest }) => rest }
        : { kind: 'pass' };
    const probe = probeOf(proxy.url, sb.apiKey);
    await writeChecks(probe, { live: false });
    expect(probe.found.divergences).toEqual([
      {
        operation: 'DELETE /v1/webhooks/{id}',
        path: 'header X-Request-Id',
        expected: 'present (req_…)',
        got: 'nothing',
      },
    ]);
    expect(await webhooks()).toEqual([]);
  });

  it('names deliveries that do not verify with the secret the create answered', async () => {
    proxy = await startFaultProxy(sb.url);
    // The service signs with one secret and answers another: to a receiver, a scheme of its own.
    proxy.plan = (req) =>
      req.method === 'POST' && req.url === '/v1/webhooks'
        ? { kind: 'rewrite', rewrite: (b) => b.replace(/"secret":"whsec_[^"]*"/, '"secret":"whsec_not_the_one"') }
        : { kind: 'pass' };
    const probe = probeOf(proxy.url, sb.apiKey);
    await writeChecks(probe, { live: false });
    expect(probe.found.divergences.map((d) => `${d.operation} ${d.path}`)).toEqual([
      'WEBHOOK run.created signature',
      'WEBHOOK run.canceled signature',
    ]);
    expect(probe.found.divergences[0]!.got).toMatch(/no v1 signature matches/);
    expect(await webhooks()).toEqual([]);
  });
});

describe('orc verify --write undoes what it made', () => {
  it('when a check fails midway: the run is canceled and the webhook removed all the same', async () => {
    let cancels = 0;
    const probe = probeOf(sb.url, sb.apiKey, {
      raw: (method, path) => {
        if (method === 'POST' && path.endsWith('/cancel') && ++cancels === 1) throw new Error('the network went away');
      },
    });
    await expect(writeChecks(probe, { live: false })).rejects.toThrow('the network went away');
    expect((await runs()).map((r) => r.status)).toEqual(['canceled']);
    expect(await webhooks()).toEqual([]);
  });

  it('what could not be undone is said as a warning, whatever the output (a script must know it was left)', async () => {
    const probe = probeOf(sb.url, sb.apiKey, {
      raw: (method, path) => {
        if (method === 'DELETE' && path.startsWith('/v1/webhooks/')) throw new Error('the network went away');
      },
    });
    await writeChecks(probe, { live: false }).catch(() => {});
    expect(probe.found.warned).toEqual([expect.stringMatching(/^could not undo .*webhook.*remove it yourself$/)]);
  });

  it('on Ctrl-C with a request in flight: exit 130 at once, and the run and webhook are undone all the same', async () => {
    // The first cancel hangs an hour: only the interrupt ends it; the undo's own cancel is answered at once.
    await sb.faults.add({ route: 'POST /v1/runs/{run}/cancel', latency_ms: 3_600_000, times: 1 });
    const r = runOrc(['verify', '--write'], { env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey } });
    await until(async () => (await sb.faults.list())[0]?.applied === 1, 'the cancel in flight');
    process.emit('SIGINT', 'SIGINT');
    const { exitCode, stderr } = await r;
    expect(exitCode, stderr).toBe(130);
    expect(stderr).toContain('interrupted');
    expect(stderr).not.toContain('unexpected');
    expect(await webhooks()).toEqual([]);
    expect((await runs()).map((run) => run.status)).toEqual(['canceled']);
  });
});

describe('orc verify --write with a live key', () => {
  it('refuses without --live --yes, sending nothing', async () => {
    const fake = await handServer((_req, res) => res.writeHead(500).end());
    try {
      const probe = probeOf(fake.url, 'sk_live_0123456789abcdef');
      const err = await writeChecks(probe, { live: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toContain('--live --yes');
      expect(fake.seen).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
