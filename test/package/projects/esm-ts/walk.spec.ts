// A user's vitest suite in strict TypeScript: a run from creation to accepted through its three gates on a
// manual clock in under a second of real time, a real delivery verified at a node:http receiver, and nothing
// left open once the sandbox has stopped.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Orc, WebhookVerificationError, webhooks, type GateName } from 'orc-cli';
import { startSandbox } from 'orc-cli/testing';

type Delivery = { body: Buffer; headers: IncomingHttpHeaders };
const HOUR = 3_600_000;
const IDEA = { pitch: 'A habit tracker for night owls', audience: 'students', monetization: 'free' } as const;
const sockets = () => process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length;

const before = sockets();
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let orc: Orc;
let delivered: Promise<Delivery>;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.end();
    received({ body: Buffer.concat(chunks), headers: req.headers });
  });
});
let received: (d: Delivery) => void = () => {};

beforeAll(async () => {
  sandbox = await startSandbox({ clock: 'manual', stageMs: HOUR, seed: 42 });
  orc = new Orc({ apiKey: sandbox.apiKey, baseUrl: sandbox.url });
  delivered = new Promise((resolve) => (received = resolve));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await orc.close();
  await sandbox.stop();
  await new Promise((resolve) => receiver.close(resolve));
  // What the suite opened is closed: the sockets this process holds are those it held before. A closed
  // handle leaves the list a turn of the event loop after its close callback: a few turns are given, no time.
  for (let turn = 0; turn < 10 && sockets() > before; turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(sockets()).toBe(before);
});

it('takes a run from creation to accepted through its three gates, its hours of stages skipped', async () => {
  const started = performance.now();
  const clockBefore = Date.parse((await sandbox.clock()).now);
  const run = await orc.runs.create({ mode: 'idea', idea: IDEA });
  const gates: GateName[] = ['idea', 'brand', 'final'];
  for (const gate of gates) {
    await sandbox.advance('1d'); // the whole clock: the run's stages of an hour each, to its next gate
    const waiting = await orc.runs.waitFor(run.id, { until: 'gate' });
    expect(waiting.gate_pending).toBe(gate);
    await orc.gates.approve(run.id, gate);
  }
  await sandbox.advance('1d');
  const ended = await orc.runs.waitFor(run.id, { until: 'end' });
  const ms = performance.now() - started;
  process.stderr.write(`walk: ${ms.toFixed(0)} ms\n`);
  expect(ended.status).toBe('accepted');
  // Every stage's hour passed on the sandbox's clock, moved by advance alone (the real time is a figure of the
  // bench, `npm run bench -- library`, never asserted: these machines are shared).
  expect(Date.parse((await sandbox.clock()).now) - clockBefore).toBe(4 * 24 * HOUR);
});

it('verifies a real delivery from the sandbox with webhooks.verify and unwrap', async () => {
  const { port } = receiver.address() as AddressInfo;
  const hook = await orc.webhooks.create({ url: `http://127.0.0.1:${port}/hooks/orc`, events: ['run.created'] });
  const run = await orc.runs.create({ mode: 'idea', idea: IDEA });
  const { body, headers } = await delivered;
  expect(() => webhooks.verify(body, headers, hook.secret)).not.toThrow();
  const event = webhooks.unwrap(body, headers, hook.secret);
  expect(event).toMatchObject({ type: 'run.created', run_id: run.id });
  expect(() => webhooks.verify(body, headers, 'whsec_not_it')).toThrow(WebhookVerificationError);
});
