// `orc verify --write`: the checks that change something on the target (a run created, replayed and canceled;
// a webhook to a listener of verify's own, its signature and retries), everything made undone whatever happens.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RawAnswer } from '../../api/http.js';
import { path } from '../../api/path.js';
import { isLoopbackHost, keyMode } from '../../contract/keys.js';
import * as s from '../../contract/schemas.js';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, verifySignature } from '../../contract/signature.js';
import { InterruptedError, UsageError } from '../../exit/errors.js';
import { formatDuration } from '../../lib/duration.js';
import { checkShape, judge, judgeError, shown } from './judge.js';
import { type Delivered, DeliveryCatcher as Listener } from '../../webhooks/catcher.js';
import type { Probe } from './types.js';

export interface WriteOptions {
  /** The user said `--live` and `--yes` (each is needed for a live key: refuseLiveUnlessMeant). */
  live: boolean;
  yes?: boolean;
  /** Ctrl-C: the waits end at once, and what was made is still undone. */
  signal?: AbortSignal;
  /** How long to wait for deliveries and a retry (default 60 s): a service's backoff may be longer. */
  waitMs?: number;
}

const DEFAULT_WAIT_MS = 60_000;
const HOOK_EVENTS = ['run.created', 'run.canceled'];
const PITCH = 'orc verify --write: a run made to check the service against the contract, canceled at once';
const IDEA = { pitch: PITCH, audience: 'nobody: it is canceled', monetization: 'free' };

/** Runs the --write checks, reporting through the probe; undoes what it made even when a check throws. */
export async function writeChecks(probe: Probe, o: WriteOptions): Promise<void> {
  refuseLiveUnlessMeant((await probe.api.http.ready()).apiKey, o);
  const undo = new Undo(probe);
  const listener = await listenerFor(probe);
  try {
    const hook = listener ? await registerWebhook(probe, listener, undo) : null;
    const run = await createChecks(probe, undo);
    stopIfAsked(o.signal);
    if (run) await cancelChecks(probe, run, undo);
    if (hook && listener) await deliveryChecks(probe, { hook, listener, run, o });
    if (hook) await removeWebhookChecks(probe, hook.id, undo);
  } catch (err) {
    // A request cut by Ctrl-C ends as an AbortError: to the user it is the interrupt (exit 130), after the undo.
    throw o.signal?.aborted ? interrupted() : err;
  } finally {
    await undo.all();
    await listener?.close();
  }
}

/** A live key (the key decides, nothing else) writes only when the user said `--live --yes`: the command asks
 * this before anything is sent, and writeChecks again for any other caller. The refusal names what is missing. */
export function refuseLiveUnlessMeant(apiKey: string, said: { live: boolean; yes?: boolean }): void {
  const missing = [said.live ? '' : '--live', said.yes ? '' : '--yes'].filter(Boolean).join(' ');
  if (keyMode(apiKey) === 'live' && missing)
    throw new UsageError(
      `orc verify --write with a live key creates a run and a webhook on the live service: add ${missing} to mean it`,
    );
}

function stopIfAsked(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw interrupted();
}

/** Ctrl-C as orc says it (exit 130), not the signal's name as an unexpected error. */
export const interrupted = () => new InterruptedError('interrupted; nothing more was checked');

/** What is still to cancel or remove, undone in the end (a failed check, Ctrl-C) by the raw layer. */
class Undo {
  private readonly steps = new Map<string, () => Promise<RawAnswer>>();
  constructor(private readonly probe: Probe) {}

  add(what: string, step: () => Promise<RawAnswer>): void {
    this.steps.set(what, step);
  }

  done(what: string): void {
    this.steps.delete(what);
  }

  async all(): Promise<void> {
    for (const [what, step] of this.steps) {
      const a = await step().catch((err: Error) => err);
      if (a instanceof Error || a.status >= 300) {
        const why = a instanceof Error ? a.message : `status ${a.status}`;
        this.probe.warn(`could not undo ${what} (${why}): remove it yourself`);
      }
    }
    this.steps.clear();
  }
}

// ---------- answers: judged by judge.ts, as the read-only checks' ----------

/** A body read for what to undo, or a delivery's: judge.ts's bodyOf judges an answer's. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function headerOf(headers: IncomingHttpHeaders | RawAnswer['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

// ---------- runs: create, replay, reuse, cancel ----------

const CREATE = 'POST /v1/runs';
const CANCEL = 'POST /v1/runs/{id}/cancel';

/** Creates a run and replays its create; the run's id, or null when none was made. */
async function createChecks(probe: Probe, undo: Undo): Promise<string | null> {
  const key = randomUUID();
  const body = { mode: 'idea', idea: IDEA };
  const send = (b: unknown) => probe.raw('POST', '/v1/runs', { body: b, headers: { 'idempotency-key': key } });
  probe.say('creating a run (idea mode) and replaying its create…');
  const first = await send(body);
  // Whatever the status, a run that came is canceled in the end.
  const made = (jsonOf(first.text) as { id?: unknown } | undefined)?.id;
  const id = first.status < 300 && typeof made === 'string' ? made : null;
  if (id) undo.add(`the run ${id}`, () => probe.raw('POST', path`/v1/runs/${id}/cancel`, { undo: true }));
  if (!judge(probe, CREATE, first, s.Run, 201) || !id) return id;
  await replayChecks(probe, await send(body), id);
  const reused = await send({ ...body, idea: { ...IDEA, pitch: `${PITCH} (another body, the same key)` } });
  const op = `${CREATE} (the same Idempotency-Key, another body)`;
  judgeError(probe, op, reused, s, { status: 422, type: 'idempotency_error', code: 'idempotency_key_reused' });
  return id;
}

/** The same key and body: the original 201 again, marked replayed, the same run (no second one). */
function replayChecks(probe: Probe, a: RawAnswer, id: string): void {
  const op = `${CREATE} (replayed: the same Idempotency-Key and body)`;
  const run = judge(probe, op, a, s.Run, 201) as { id?: unknown } | undefined;
  const replayed = headerOf(a.headers, 'idempotent-replayed');
  if (replayed !== 'true')
    probe.diverge({ operation: op, path: 'header Idempotent-Replayed', expected: '"true"', got: shown(replayed) });
  if (run && run.id !== id)
    probe.diverge({ operation: op, path: 'id', expected: `the first run's id ${shown(id)}`, got: shown(run.id) });
}

/** Cancels the run, then again: each time the Run, status canceled (a second cancel answers it again). */
async function cancelChecks(probe: Probe, id: string, undo: Undo): Promise<void> {
  for (const [op, text] of [
    [CANCEL, 'canceling it'],
    [`${CANCEL} (again)`, 'canceling it again'],
  ] as const) {
    probe.say(`${text}…`);
    const a = await probe.raw('POST', path`/v1/runs/${id}/cancel`);
    if (a.status === 200) undo.done(`the run ${id}`);
    const run = judge(probe, op, a, s.Run) as { status?: unknown } | undefined;
    if (run && run.status !== 'canceled')
      probe.diverge({ operation: op, path: 'status', expected: '"canceled"', got: shown(run.status) });
  }
}

// ---------- webhooks: register, deliveries, retry, remove ----------

const HOOKS = 'POST /v1/webhooks';

/** A listener on this machine, when the target can reach it (a target on this machine); else the skip said. */
async function listenerFor(probe: Probe): Promise<Listener | null> {
  if (isLoopbackHost(new URL(probe.baseUrl).hostname)) return Listener.start();
  probe.skip(
    'WEBHOOK',
    `the target (${new URL(probe.baseUrl).host}) is not on this machine, so it cannot reach a listener here: the webhook's signature and retries are not checked`,
  );
  return null;
}

async function registerWebhook(
  probe: Probe,
  listener: Listener,
  undo: Undo,
): Promise<{ id: string; secret: string } | null> {
  probe.say(`registering a webhook to ${listener.url}…`);
  const a = await probe.raw('POST', '/v1/webhooks', { body: { url: listener.url, events: HOOK_EVENTS } });
  // Whatever the status, a webhook that came is removed in the end.
  const made = (jsonOf(a.text) as { id?: unknown } | undefined)?.id;
  const id = a.status < 300 && typeof made === 'string' ? made : null;
  if (id) undo.add(`the webhook ${id}`, () => probe.raw('DELETE', path`/v1/webhooks/${id}`, { undo: true }));
  const hook = judge(probe, HOOKS, a, s.WebhookWithSecret, 201) as { secret?: unknown } | undefined;
  if (!id || typeof hook?.secret !== 'string') return null;
  if (!hook.secret.startsWith('whsec_'))
    probe.diverge({ operation: HOOKS, path: 'secret', expected: 'whsec_…', got: shown(`${hook.secret.slice(0, 6)}…`) });
  return { id, secret: hook.secret };
}

/** Removes the webhook, and reads it: gone (404). */
async function removeWebhookChecks(probe: Probe, id: string, undo: Undo): Promise<void> {
  const op = 'DELETE /v1/webhooks/{id}';
  const a = await probe.raw('DELETE', path`/v1/webhooks/${id}`);
  if (a.status === 200) undo.done(`the webhook ${id}`);
  const body = judge(probe, op, a, s.Deleted) as { id?: unknown } | undefined;
  if (!body) return;
  if (body.id !== id) probe.diverge({ operation: op, path: 'id', expected: shown(id), got: shown(body.id) });
  const gone = 'GET /v1/webhooks/{id} (removed)';
  const after = await probe.raw('GET', path`/v1/webhooks/${id}`);
  judgeError(probe, gone, after, s, { status: 404, type: 'not_found_error', code: 'webhook_not_found' });
}

interface DeliveryContext {
  hook: { id: string; secret: string };
  listener: Listener;
  run: string | null;
  o: WriteOptions;
}

const eventOf = (d: Delivered) => jsonOf(d.raw.toString('utf8')) as { id?: unknown; type?: unknown; run_id?: unknown };

/** Waits for the run's events and the first delivery's retry, then checks every delivery that came. */
async function deliveryChecks(probe: Probe, c: DeliveryContext): Promise<void> {
  const { listener, run, o } = c;
  const waitMs = o.waitMs ?? DEFAULT_WAIT_MS;
  const ours = (type: string) => listener.got.some((d) => eventOf(d)?.run_id === run && eventOf(d)?.type === type);
  const retried = () => {
    const first = listener.got[0];
    return !!first && listener.got.slice(1).some((d) => eventOf(d)?.id === eventOf(first)?.id);
  };
  probe.say(`waiting for the deliveries (${HOOK_EVENTS.join(', ')}) and a retry of the one answered 500…`);
  const timer = (ms: number, fn: () => void) => probe.api.http.clock.timer(ms, fn);
  const all = await listener.until(() => HOOK_EVENTS.every(ours) && retried(), waitMs, timer, o.signal);
  stopIfAsked(o.signal);
  if (run)
    for (const type of HOOK_EVENTS.filter((t) => !ours(t)))
      probe.diverge({
        operation: `WEBHOOK ${type}`,
        path: 'delivery',
        expected: `delivered within ${formatDuration(waitMs)}`,
        got: 'none',
      });
  checkEachDelivery(probe, c);
  if (all || retried()) retryChecks(probe, listener);
  else if (listener.got.length > 0)
    probe.skip(
      'WEBHOOK (retry)',
      `a delivery answered 500 did not come again within ${formatDuration(waitMs)}: its backoff may be longer`,
    );
}

/** Each event's first delivery: signed with the secret, the contract's headers, an Event envelope. */
function checkEachDelivery(probe: Probe, { hook, listener }: DeliveryContext): void {
  const seen = new Set<unknown>();
  for (const d of listener.got) {
    const event = eventOf(d);
    if (seen.has(event?.id ?? d)) continue;
    seen.add(event?.id ?? d);
    const op = `WEBHOOK ${typeof event?.type === 'string' ? event.type : '(not an event)'}`;
    probe.checked(op);
    const signed = verifySignature(hook.secret, headerOf(d.headers, SIGNATURE_HEADER), d.raw);
    if (!signed.ok)
      probe.diverge({
        operation: op,
        path: 'signature',
        expected: 'X-Service-Signature: t=…,v1=HMAC-SHA256(secret, t.body)',
        got: signed.message,
      });
    const type = headerOf(d.headers, 'content-type') ?? '';
    if (!type.startsWith('application/json'))
      probe.diverge({
        operation: op,
        path: 'header Content-Type',
        expected: 'application/json',
        got: shown(type || undefined),
      });
    const delivery = headerOf(d.headers, DELIVERY_ID_HEADER);
    if (!delivery?.startsWith('dlv_'))
      probe.diverge({ operation: op, path: 'header X-Service-Delivery-Id', expected: 'dlv_…', got: shown(delivery) });
    checkShape(probe, op, s.Event, event);
  }
}

/** The delivery answered 500 came again: the same event, the same delivery id. */
function retryChecks(probe: Probe, listener: Listener): void {
  const [first, ...rest] = listener.got;
  const again = rest.find((d) => eventOf(d)?.id === eventOf(first!)?.id)!;
  const op = `WEBHOOK ${String(eventOf(first!)?.type)} (retried after a 500)`;
  probe.checked(op);
  const was = headerOf(first!.headers, DELIVERY_ID_HEADER);
  const now = headerOf(again.headers, DELIVERY_ID_HEADER);
  if (was !== now)
    probe.diverge({
      operation: op,
      path: 'header X-Service-Delivery-Id',
      expected: `the same delivery ${shown(was)}`,
      got: shown(now),
    });
}
