// The webhooks toolset through an MCP client (the SDK's, over its in-memory transport) against an in-process
// sandbox: add (its secret once), list (no secret), deliveries, redeliver, remove.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pickTools } from '../../src/mcp/toolsets.js';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { inProcessMcp } from '../helpers/mcp.js';
import { until } from '../helpers/until.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;

let sb: TestSandbox;
let client: Client;
let close: () => Promise<void>;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  const tools = (all: Parameters<typeof pickTools>[0]) => pickTools(all, { toolsets: ['webhooks'] }, 'test');
  ({ client, close } = await inProcessMcp({ baseUrl: sb.url, apiKey: sb.apiKey, tools }));
});
afterAll(async () => {
  await close?.();
  await sb?.stop();
});

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };
const call = async (name: string, args: Record<string, unknown> = {}) => {
  const r = (await client.callTool({ name, arguments: args })) as Result;
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return r.structuredContent;
};

it('adds a webhook (its secret once), lists it, reads and redelivers its deliveries, and removes it', async () => {
  const { webhook } = await call('add_webhook', { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
  expect(webhook.secret).toEqual(expect.any(String));
  const listed = (await call('list_webhooks')).webhooks;
  expect(listed.map((w: { id: string }) => w.id)).toEqual([webhook.id]);
  expect(listed[0]).not.toHaveProperty('secret');

  const run = await sb.client.runs.create({ mode: 'idea', idea: IDEA });
  await sb.advance({ run: run.id, to: 'gate:brand' });
  let deliveries: Array<{ id: string; event_type: string }> = [];
  await until(async () => {
    deliveries = (await call('list_deliveries', { webhook_id: webhook.id })).deliveries;
    return deliveries.length > 0;
  }, 'a delivery of the run’s events');
  expect(deliveries.map((d) => d.event_type)).toEqual(expect.arrayContaining([expect.stringMatching(/^run\./)]));
  expect((await call('list_deliveries', { webhook_id: webhook.id, limit: 1 })).deliveries).toHaveLength(1);
  const again = (await call('redeliver_delivery', { webhook_id: webhook.id, delivery_id: deliveries[0]!.id })).delivery;
  expect(again.id).toEqual(expect.any(String));

  expect((await call('remove_webhook', { webhook_id: webhook.id })).removed).toEqual({ id: webhook.id, deleted: true });
  expect((await call('list_webhooks')).webhooks).toEqual([]);
});

it('a refused webhook is a tool error with the service’s code, nothing registered', async () => {
  const r = (await client.callTool({
    name: 'add_webhook',
    arguments: { url: 'http://example.com/hooks', events: ['*'] },
  })) as Result;
  expect(r.isError).toBe(true);
  expect(r.content[0]!.text).toMatch(/^\w+: .*url/i);
  expect((await call('list_webhooks')).webhooks).toEqual([]);
});
