// Retention (CONTRACT.md): events and deliveries kept 30 days of the sandbox's clock, deliveries at most the
// newest --keep-deliveries; what expired is 404 delivery_not_found saying so; what is pending stays.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { ManualClock } from '../../src/sandbox/manual-clock.js';
import { driveToEnd, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { handServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const DAY = 86_400_000;

async function listed(sb: TestSandbox, hook: string): Promise<Array<{ id: string; status: string; attempts: number }>> {
  const out: Array<{ id: string; status: string; attempts: number }> = [];
  for (let cursor = ''; ; ) {
    const page = (await sb.call('GET', `/v1/webhooks/${hook}/deliveries?limit=100${cursor}`)).body;
    out.push(...page.data);
    if (!page.has_more) return out;
    cursor = `&cursor=${page.next_cursor}`;
  }
}

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
    // (a retry 40 days on: the failing delivery is pending throughout)
    const sb = await startTestSandbox({ clock, wallClock: systemClock, stageMs: 3_600_000, retryBaseMs: 40 * DAY });
    try {
      const good = (await sb.call('POST', '/v1/webhooks', { url: ok.url, events: ['run.created', 'run.canceled'] }))
        .body.id as string;
      const bad = (await sb.call('POST', '/v1/webhooks', { url: failing.url, events: ['run.created'] })).body
        .id as string;
      const run = await sb.createRun('Kept a month');
      await until(async () => (await listed(sb, good))[0]?.status === 'succeeded', 'run.created delivered');
      await until(async () => (await listed(sb, bad))[0]?.attempts === 1, 'the failing attempt recorded');
      const [created] = await listed(sb, good);
      const [pending] = await listed(sb, bad);
      clock.advanceTo(start + 20 * DAY);
      await sb.call('POST', `/v1/runs/${run.id}/cancel`);
      await until(async () => (await listed(sb, good)).length === 2, 'run.canceled delivered');
      expect(await eventTypes(sb, run.id)).toContain('run.created');

      clock.advanceTo(start + 30 * DAY + 120_000);
      const gone = await sb.call('POST', `/v1/webhooks/${good}/deliveries/${created!.id}:redeliver`);
      expect(gone.status).toBe(404);
      expect(gone.body.error).toMatchObject({ code: 'delivery_not_found', field: 'delivery_id' });
      expect(gone.body.error.message).toMatch(/has expired: the sandbox keeps deliveries 30 days/);
      expect((await listed(sb, good)).map((d) => d.id)).not.toContain(created!.id);
      expect((await listed(sb, good)).length).toBe(1); // the cancellation, 20 days old
      expect((await listed(sb, bad)).map((d) => d.id)).toEqual([pending!.id]);
      const types = await eventTypes(sb, run.id);
      expect(types).not.toContain('run.created');
      expect(types).toContain('run.canceled');

      clock.advanceTo(start + 50 * DAY + 120_000);
      expect(await listed(sb, good)).toEqual([]);
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
      await until(async () => (await listed(sb, hooks[0]!)).length > 0, 'a first delivery');
      firsts.push((await listed(sb, hooks[0]!)).at(-1)!.id);
      await driveToEnd(sb, run.id);
      const events = (await eventTypes(sb, run.id)).filter((t) => t !== 'log').length;
      expect(events).toBeGreaterThan(16);
      // every event reached the receiver twice (once a webhook), though not all are kept
      await until(() => ok.seen.length >= 2 * events, 'every delivery to arrive');
      await until(async () => sb.store.liveDeliveries().length === 0, 'every delivery recorded');
      const kept = [...(await listed(sb, hooks[0]!)), ...(await listed(sb, hooks[1]!))];
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
