// webhooks.verify/unwrap on a real delivery: a sandbox of orc-cli/testing posts to a node:http receiver that
// checks it as a user's backend would; then the same delivery altered, and hostile headers, each refused with
// WebhookVerificationError and its reason, never another exception.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { webhooks, WebhookVerificationError, type WebhookFailure } from '../../src/sdk/webhooks.js';
import { signatureHeader } from '../../src/contract/signature.js';
import type { Event } from '../../src/contract/schemas.js';

const IDEA = {
  mode: 'idea' as const,
  idea: { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' as const },
};

interface Received {
  body: Buffer;
  headers: IncomingHttpHeaders;
  /** What the receiver made of it: the event unwrapped, or the reason it refused it. */
  outcome: Event | WebhookFailure;
}

let sb: TestSandbox;
let receiver: Server;
let secret: string;
const received: Received[] = [];
let arrived: (r: Received) => void = () => {};

/** A receiver as a user writes one: the raw body, unwrapped with the webhook's secret; 400 when refused. */
async function startReceiver(): Promise<string> {
  receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let outcome: Event | WebhookFailure;
    try {
      outcome = webhooks.unwrap(body, req.headers, secret);
    } catch (err) {
      outcome = err instanceof WebhookVerificationError ? err.reason : (String(err) as WebhookFailure);
    }
    res.writeHead(typeof outcome === 'string' ? 400 : 200).end();
    const r = { body, headers: req.headers, outcome };
    received.push(r);
    arrived(r);
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  return `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
}

/** The first delivery of `type` for `runId`, as it arrives (or had arrived). */
function delivery(type: string, runId: string): Promise<Received> {
  const match = (r: Received) =>
    JSON.parse(r.body.toString('utf8')).type === type && JSON.parse(r.body.toString('utf8')).run_id === runId;
  const had = received.find(match);
  if (had) return Promise.resolve(had);
  return new Promise((resolve) => {
    const before = arrived;
    arrived = (r) => {
      before(r);
      if (match(r)) resolve(r);
    };
  });
}

let real: Received;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual' });
  const url = await startReceiver();
  const hook = await sb.client.webhooks.create({ url, events: ['run.created'] });
  secret = hook.secret;
  const run = await sb.client.runs.create(IDEA);
  real = await delivery('run.created', run.id);
});
afterAll(async () => {
  await sb.stop();
  receiver.closeAllConnections();
  await new Promise((done) => receiver.close(done));
});

/** The reason `fn` was refused with; anything else thrown (or nothing) fails the test. */
function reasonOf(fn: () => unknown): WebhookFailure {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw new Error(`not a WebhookVerificationError: ${String(err)}`);
  }
  throw new Error('it was accepted');
}

describe('webhooks on a real delivery from the sandbox', () => {
  it('the receiver unwraps the delivery into the typed event, from the headers node:http gives', () => {
    expect(real.outcome).toMatchObject({ type: 'run.created', id: expect.any(String), data: expect.any(Object) });
    const header = real.headers['x-service-signature'];
    expect(() => webhooks.verify(real.body, header as string, secret)).not.toThrow();
    expect(() => webhooks.verify(real.body.toString('utf8'), real.headers, secret)).not.toThrow();
    expect(() =>
      webhooks.verify(real.body, new Headers({ 'X-Service-Signature': header as string }), secret),
    ).not.toThrow();
  });

  it('passes with two secrets while one is rotated, whichever order', () => {
    const header = real.headers['x-service-signature'] as string;
    expect(() => webhooks.verify(real.body, header, ['whsec_old_one', secret])).not.toThrow();
    expect(() => webhooks.verify(real.body, header, [secret, 'whsec_old_one'])).not.toThrow();
  });

  it('refuses a wrong secret, a tampered body, a stale timestamp, a parsed body', () => {
    const header = real.headers['x-service-signature'] as string;
    const t = Number(/t=(\d+)/.exec(header)![1]) * 1000;
    const tampered = Buffer.from(real.body.toString('utf8').replace('run.created', 'run.accepted'));
    expect(reasonOf(() => webhooks.verify(real.body, header, 'whsec_wrong'))).toBe('no_matching_signature');
    expect(reasonOf(() => webhooks.verify(real.body, header, ['whsec_a', 'whsec_b']))).toBe('no_matching_signature');
    expect(reasonOf(() => webhooks.unwrap(tampered, header, secret))).toBe('no_matching_signature');
    expect(reasonOf(() => webhooks.verify(real.body, header, secret, { now: t + 301_000 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(reasonOf(() => webhooks.verify(real.body, header, secret, { now: t - 301_000 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(() => webhooks.verify(real.body, header, secret, { now: t + 301_000, tolerance: 600 })).not.toThrow();
    expect(reasonOf(() => webhooks.verify(real.body, header, secret, { now: t + 11_000, tolerance: 10 }))).toBe(
      'timestamp_outside_tolerance',
    );
    const parsed = JSON.parse(real.body.toString('utf8')) as never;
    expect(reasonOf(() => webhooks.verify(parsed, header, secret))).toBe('not_raw_body');
    expect(reasonOf(() => webhooks.unwrap(parsed, header, secret))).toBe('not_raw_body');
    expect(reasonOf(() => webhooks.verify(null as never, header, secret))).toBe('not_raw_body');
    expect(reasonOf(() => webhooks.verify(real.body, header, ''))).toBe('no_secret');
    expect(reasonOf(() => webhooks.verify(real.body, header, []))).toBe('no_secret');
  });

  it('the receiver answered the tampered and the wrongly signed with a refusal of its own (a real POST)', async () => {
    const header = real.headers['x-service-signature'] as string;
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
    const tampered = real.body.toString('utf8').replace('"run.created"', '"run.failed"');
    const res = await fetch(url, {
      method: 'POST',
      body: tampered,
      headers: { 'content-type': 'application/json', 'x-service-signature': header },
    });
    expect(res.status).toBe(400);
    expect(received.at(-1)!.outcome).toBe('no_matching_signature');
  });

  it('refuses a signed body that is not an event: not_an_event', () => {
    const body = 'not json';
    expect(reasonOf(() => webhooks.unwrap(body, signatureHeader(secret, body), secret))).toBe('not_an_event');
    const other = JSON.stringify({ hello: 'world' });
    expect(reasonOf(() => webhooks.unwrap(other, signatureHeader(secret, other), secret))).toBe('not_an_event');
  });

  it('refuses an envelope whose data is not of the contract: a gate that is a number is no typed Event', () => {
    const odd = JSON.stringify({
      id: 'evt_1',
      type: 'run.gate_pending',
      created_at: '2026-11-27T00:00:00Z',
      run_id: 'run_1',
      data: { gate: 5 },
    });
    expect(reasonOf(() => webhooks.unwrap(odd, signatureHeader(secret, odd), secret))).toBe('not_an_event');
  });

  it('takes the body as any view of its bytes, and the secret as bytes too', () => {
    const body = Buffer.from(
      JSON.stringify({ id: 'evt_2', type: 'run.created', created_at: 'x', run_id: 'r', data: {} }),
    );
    const header = signatureHeader(secret, body);
    const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    expect(webhooks.unwrap(view, header, secret).id).toBe('evt_2');
    expect(() => webhooks.verify(body, header, Buffer.from(secret))).not.toThrow();
  });
});

describe('webhooks.verify on hostile headers', () => {
  const valid = () => real.headers['x-service-signature'] as string;
  const t = () => /t=(\d+)/.exec(valid())![1]!;
  const hostile: [string, () => unknown, WebhookFailure][] = [
    ['none', () => undefined, 'malformed'],
    ['null', () => null, 'malformed'],
    ['empty', () => '', 'malformed'],
    ['garbage', () => '\u0000\uffff,,,===;;t', 'malformed'],
    ['huge', () => `t=${t()},v1=${'a'.repeat(1_000_000)}`, 'malformed'],
    ['many parts', () => `t=${t()},${'v1=x,'.repeat(10_000)}`, 'malformed'],
    ['t= only', () => 't=', 'malformed'],
    ['t and no v1', () => `t=${t()}`, 'malformed'],
    ['non-hex v1', () => `t=${t()},v1=${'z'.repeat(64)}`, 'malformed'],
    ['a timestamp too long', () => `t=1${'0'.repeat(30)},v1=${'a'.repeat(64)}`, 'malformed'],
    ['a negative timestamp', () => `t=-1,v1=${'a'.repeat(64)}`, 'malformed'],
    ['an ancient timestamp', () => `t=1,v1=${'a'.repeat(64)}`, 'timestamp_outside_tolerance'],
    ['a well-formed wrong v1', () => `t=${t()},v1=${'a'.repeat(64)}`, 'no_matching_signature'],
    ['an array of two', () => [valid(), valid()], 'malformed'],
    ['an empty array', () => [], 'malformed'],
    ['an array of a number', () => [42], 'malformed'],
    ['a number', () => 42, 'malformed'],
    ['headers without it', () => ({ 'content-type': 'application/json' }), 'malformed'],
    ['headers with it twice', () => ({ 'x-service-signature': [valid(), valid()] }), 'malformed'],
    ['headers with an object for it', () => ({ 'X-Service-Signature': { t: 1 } }), 'malformed'],
    ['a get that answers a number', () => ({ get: () => 42 }), 'malformed'],
    ['a get that answers null', () => new Headers(), 'malformed'],
  ];
  for (const [what, header, reason] of hostile)
    it(`${what}: ${reason}`, () => {
      expect(reasonOf(() => webhooks.verify(real.body, header() as never, secret))).toBe(reason);
      expect(reasonOf(() => webhooks.unwrap(real.body, header() as never, secret))).toBe(reason);
    });
});
