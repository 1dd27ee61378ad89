// Retention (CONTRACT.md): events and deliveries kept 30 days of the sandbox's clock, deliveries at most the
// newest --keep-deliveries; what expired is 404 delivery_not_found saying so; what is pending stays.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { ManualClock } from '../../src/sandbox/manual-clock.js';
import { allDeliveries, driveToEnd, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { handServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const DAY = 86_400_000;

/** Every SSE event type the run's stream replays (the run has ended, so the stream ends). */
async function eventTypes(sb: TestSandbox, runId: string): Promise<string[]> {
  const { text } = await sb.call('GET', `/v1/runs/${runId}/events`);
  return text
    .split('\n')
    .filter((l) => l.startsWith('event: '))
    .map((l) => l.slice(7));
}

describe('retention', () => {
  it('expires events and deliveries 30 days after they were made, by the sandbox clock; pending ones stay', async () => {
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    const clock = new ManualClock(start);
    const ok = await handServer((_req, res) => res.writeHead(200).end());
    const failing = await handServer((_req, res) => res.writeHead(500).end());
    // (a retry 100 to 200 days on, jitter and all: the failing delivery is pending throughout, never tried again)
    const sb = await startTestSandbox({ clock, wallClock: systemClock, stageMs: 3_600_000, retryBaseMs: 200 * DAY });
    try {
      const good = (await sb.call('POST', '/v1/webhooks', { url: ok.url, events: ['run.created', 'run.canceled'] }))
        .body.id as string;
      const bad = (await sb.call('POST', '/v1/webhooks', { url: failing.url, events: ['run.created'] })).body
        .id as string;
      const run = await sb.createRun('Kept a month');
      await until(async () => (await allDeliveries(sb, good))[0]?.status === 'succeeded', 'run.created delivered');
      await until(async () => (await allDeliveries(sb, bad))[0]?.attempts === 1, 'the failing attempt recorded');
      const [created] = await allDeliveries(sb, good);
      const [pending] = await allDeliveries(sb, bad);
      clock.advanceTo(start + 20 * DAY);
      await sb.call('POST', `/v1/runs/${run.id}/cancel`);
      await until(async () => (await allDeliveries(sb, good)).length === 2, 'run.canceled delivered');
      expect(await eventTypes(sb, run.id)).toContain('run.created');

      clock.advanceTo(start + 30 * DAY + 120_000);
      const gone = await sb.call('POST', `/v1/webhooks/${good}/deliveries/${created!.id}:redeliver`);
      expect(gone.status).toBe(404);
      expect(gone.body.error).toMatchObject({ code: 'delivery_not_found', field: 'delivery_id' });
      expect(gone.body.error.message).toMatch(/has expired: the sandbox keeps deliveries 30 days/);
      expect((await allDeliveries(sb, good)).map((d) => d.id)).not.toContain(created!.id);
      expect((await allDeliveries(sb, good)).length).toBe(1); // the cancellation, 20 days old
      expect((await allDeliveries(sb, bad)).map((d) => d.id)).toEqual([pending!.id]);
      const types = await eventTypes(sb, run.id);
      expect(types).not.toContain('run.created');
      expect(types).toContain('run.canceled');

      clock.advanceTo(start + 50 * DAY + 120_000);
      expect(await allDeliveries(sb, good)).toEqual([]);
      expect(await eventTypes(sb, run.id)).toEqual([]);
      // an id this sandbox never made is not said to have expired
      const never = await sb.call('POST', `/v1/webhooks/${good}/deliveries/dlv_nope:redeliver`);
      expect(never.body.error.message).toMatch(/^no delivery with id/);
    } finally {
      await sb.close();
      await ok.close();
      await failing.close();
    }
  });

  it('keeps at most the newest --keep-deliveries deliveries: older ones expire, and say so', async () => {
    const ok = await handServer((_req, res) => res.writeHead(200).end());
    const sb = await startTestSandbox({ keepDeliveries: 16, stageMs: 20, retryBaseMs: 10 });
    try {
      const hooks: string[] = [];
      for (let i = 0; i < 2; i++)
        hooks.push((await sb.call('POST', '/v1/webhooks', { url: ok.url, events: ['*'] })).body.id as string);
      const firsts: string[] = [];
      const run = await sb.createRun('Many deliveries');
      await until(async () => (await allDeliveries(sb, hooks[0]!)).length > 0, 'a first delivery');
      firsts.push((await allDeliveries(sb, hooks[0]!)).at(-1)!.id);
      await driveToEnd(sb, run.id);
      const events = (await eventTypes(sb, run.id)).filter((t) => t !== 'log').length;
      expect(events).toBeGreaterThan(16);
      // every event reached the receiver twice (once a webhook), though not all are kept
      await until(() => ok.seen.length >= 2 * events, 'every delivery to arrive');
      await until(async () => sb.store.liveDeliveries().length === 0, 'every delivery recorded');
      const kept = [...(await allDeliveries(sb, hooks[0]!)), ...(await allDeliveries(sb, hooks[1]!))];
      expect(kept.length).toBeLessThanOrEqual(16 + 1);
      expect(kept.length).toBeGreaterThanOrEqual(16 - 2); // (the run's and webhooks' seqs count too)
      const gone = await sb.call('POST', `/v1/webhooks/${hooks[0]}/deliveries/${firsts[0]}:redeliver`);
      expect(gone.status).toBe(404);
      expect(gone.body.error.message).toMatch(/at most the newest 16/);
    } finally {
      await sb.close();
      await ok.close();
    }
  });
});

describe('retention, and what it leaves alone', () => {
  const freshData = () => join(mkdtempSync(join(tmpdir(), 'orc-retention-')), 'sandbox.db');

  it('a delivery pending when its event expires keeps its body: after a restart its retry posts it whole', async () => {
    const dataPath = freshData();
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    let up = false;
    const bodies: string[] = [];
    const rx = await handServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => (up && bodies.push(body), res.writeHead(up ? 200 : 503).end()));
    });
    // (its retry 100 to 200 days on: nothing but the redelivery below tries it again, before or after the restart)
    const opts = { dataPath, wallClock: systemClock, stageMs: 3_600_000, retryBaseMs: 200 * DAY };
    const first = await startTestSandbox({ ...opts, clock: new ManualClock(start) });
    let hook = '';
    let eventId = '';
    try {
      hook = (await first.call('POST', '/v1/webhooks', { url: rx.url, events: ['run.created'] })).body.id;
      const run = await first.createRun('Pending a month');
      eventId = JSON.parse(first.store.eventsOf(run.id)[0]!.json).id;
      await until(async () => (await allDeliveries(first, hook))[0]?.attempts === 1, 'the refused attempt recorded');
      (first.clock as ManualClock).advanceTo(start + 31 * DAY);
      expect(first.store.eventsOf(run.id).map((e) => e.type)).not.toContain('run.created');
    } finally {
      await first.close();
    }
    const again = await startTestSandbox({ ...opts, clock: new ManualClock(start) });
    try {
      up = true;
      const [pending] = await allDeliveries(again, hook);
      expect(pending).toMatchObject({ status: 'pending', attempts: 1 });
      const sent = await again.call('POST', `/v1/webhooks/${hook}/deliveries/${pending!.id}:redeliver`);
      expect(sent.status).toBe(200);
      await until(() => bodies.length === 1, 'the retry to arrive');
      expect(JSON.parse(bodies[0]!)).toMatchObject({ id: eventId, type: 'run.created' });
    } finally {
      await again.close();
      await rx.close();
    }
  });

  it('is not work a steered clock shows as due, and ids from before a reset are not said to have expired', async () => {
    const clock = new ManualClock(Date.parse('2026-11-01T00:00:00.000Z'));
    const ok = await handServer((_req, res) => res.writeHead(200).end());
    const sb = await startTestSandbox({ clock, wallClock: systemClock, stageMs: 3_600_000 });
    try {
      const hook = (await sb.call('POST', '/v1/webhooks', { url: ok.url, events: ['run.created'] })).body.id;
      const run = await sb.createRun('Nothing due');
      await sb.call('POST', `/v1/runs/${run.id}/cancel`);
      await until(async () => (await allDeliveries(sb, hook)).length === 1, 'the delivery');
      await until(() => sb.store.liveCount === 0, 'the delivery recorded');
      // the events kept will expire in 30 days, but nothing the sandbox does is due: a script advancing
      // "until nothing is due" ends
      expect((await sb.call('GET', '/_sandbox/clock')).body.next_due).toBeNull();
      const [made] = await allDeliveries(sb, hook);
      expect((await sb.call('POST', '/_sandbox/reset')).status).toBe(200);
      const hook2 = (await sb.call('POST', '/v1/webhooks', { url: ok.url, events: ['*'] })).body.id;
      const gone = await sb.call('POST', `/v1/webhooks/${hook2}/deliveries/${made!.id}:redeliver`);
      expect(gone.status).toBe(404);
      expect(gone.body.error.message).toMatch(/^no delivery with id/);
    } finally {
      await sb.close();
      await ok.close();
    }
  });
});
