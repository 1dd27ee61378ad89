// A sandbox snapshot: written out record by record (GET /_sandbox/export), never built as one string, and
// on import its records held to the rules of the API that made them, before anything starts: a file is
// data from outside (edited, or made to hurt), never trusted whole. The first fault is one line naming the
// record and its field.
import type { ServerResponse } from 'node:http';
import type * as z from 'zod/mini';
import { EVENT_KINDS, GATE_DECISIONS, GATE_NAMES, GATE_STATES, LOG_EVENT, RUN_STATUSES } from '../contract/events.js';
import { idProblem } from '../contract/ids.js';
import { describeIssue } from '../contract/issues.js';
import { AppSpecInput, Delivery, Event, Gate, Run, Scorecard } from '../contract/schemas.js';
import { isPlainEvent } from '../contract/shapes.js';
import { Failure } from './failure.js';
import type { DeliveryRecord, RunRecord, SnapshotAt, StoredEvent, WebhookRecord } from './store.js';
import { webhookTarget } from './webhooks.js';

export interface Snapshot {
  runs: RunRecord[];
  events: Record<string, StoredEvent[]>;
  webhooks: WebhookRecord[];
  deliveries: DeliveryRecord[];
}

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
const WEBHOOK_STATUSES = ['enabled', 'deleted'] as const;

/** Bytes gathered before a write to the socket: a write per record cost more than the records. */
const WRITE_BYTES = 64 * 1024;

/**
 * Writes the snapshot of `at` as one JSON document, a record at a time, waiting whenever the client has
 * not taken what was written (memory holds a few pieces, never the document). A reset that comes while it
 * is written cuts the answer off: the client never takes half of two moments for a snapshot.
 */
export async function writeSnapshot(
  res: ServerResponse,
  head: { format: string; schema: number; exported_at: string },
  at: SnapshotAt,
): Promise<void> {
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'X-Snapshot-Runs': String(at.runs.length),
    'X-Snapshot-Webhooks': String(at.webhooks.length),
    'X-Snapshot-Deliveries': String(at.deliveries.count),
  });
  let pending = '';
  for (const piece of snapshotPieces(head, at)) {
    pending += piece;
    if (pending.length < WRITE_BYTES) continue;
    if (at.cleared()) return void res.destroy();
    const more = res.write(pending);
    pending = '';
    if (!more) await new Promise<void>((go) => (res.once('drain', go), res.once('close', go)));
    if (res.destroyed) return;
  }
  if (at.cleared()) return void res.destroy();
  res.end(pending);
}

function* snapshotPieces(head: object, at: SnapshotAt): Generator<string> {
  yield `${JSON.stringify(head).slice(0, -1)},"runs":[`;
  yield* list(at.runs);
  yield '],"events":{';
  for (let i = 0; i < at.runs.length; i++) {
    const rec = at.runs[i]!;
    yield `${i ? ',' : ''}${JSON.stringify(rec.run.id)}:[`;
    yield* list(at.eventsOf(rec).map(({ seq, type, json }) => ({ seq, type, json })));
    yield ']';
  }
  yield '},"webhooks":[';
  yield* list(at.webhooks);
  yield '],"deliveries":[';
  yield* list(at.deliveries.each());
  yield ']}\n';
}

function* list(records: Iterable<object>): Generator<string> {
  let first = true;
  for (const r of records) {
    yield `${first ? '' : ','}${JSON.stringify(r)}`;
    first = false;
  }
}

class Bad extends Error {
  constructor(field: string, problem: string) {
    super(field ? `${field}: ${problem}` : problem);
  }
}

/** Checks every record of a parsed snapshot; throws an Error (code ERR_SANDBOX_SNAPSHOT) naming the first bad one. */
export function checkSnapshot(snap: Snapshot): void {
  const runIds = new Set<string>();
  each('runs', snap.runs, (rec) => checkRun(rec, runIds));
  for (const runId of Object.keys(snap.events)) {
    const list = `events[${JSON.stringify(runId)}]`;
    if (!runIds.has(runId)) throw snapshotError(`${list}: no run ${JSON.stringify(runId)} in the snapshot`);
    each(list, snap.events[runId], (ev) => checkEvent(ev, runId));
  }
  const webhookIds = new Set<string>();
  each('webhooks', snap.webhooks, (w) => checkWebhook(w, webhookIds));
  const deliveryIds = new Set<string>();
  each('deliveries', snap.deliveries, (d) => checkDelivery(d, deliveryIds, webhookIds));
}

function snapshotError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_SANDBOX_SNAPSHOT' });
}

/** Each record of a list, the list itself first; a fault names `list[i] (id)`. */
function each<T>(list: string, records: unknown, check: (r: Record<string, unknown>) => void): asserts records is T[] {
  if (!Array.isArray(records)) throw snapshotError(`${list}: must be an array`);
  const seqs = new Set<number>();
  records.forEach((r, i) => {
    const named = isObject(r) ? (isObject(r.run) ? r.run.id : r.id) : undefined;
    const id = typeof named === 'string' ? ` (${JSON.stringify(named)})` : '';
    try {
      if (!isObject(r)) throw new Bad('', `must be an object, not ${r === null ? 'null' : typeof r}`);
      check(r);
      unique(seqs, integer(r.seq, 'seq', 1), 'seq');
    } catch (err) {
      if (!(err instanceof Bad)) throw err;
      throw snapshotError(`${list}[${i}]${id} ${err.message}`);
    }
  });
}

function checkRun(rec: Record<string, unknown>, ids: Set<string>): void {
  const run = shape(Run, rec.run, 'run');
  unique(ids, id(run.id, 'run', 'run.id'), 'run.id');
  oneOf(run.status, RUN_STATUSES, 'run.status');
  time(run.created_at, 'run.created_at');
  if (run.updated_at !== undefined) time(run.updated_at, 'run.updated_at');
  shape(AppSpecInput, rec.spec, 'spec');
  if (!isObject(rec.gates)) throw new Bad('gates', 'must be an object');
  for (const name of GATE_NAMES) checkGate(rec.gates[name], name);
  if (rec.scorecard !== null) shape(Scorecard, rec.scorecard, 'scorecard');
  if (typeof rec.text !== 'string') throw new Bad('text', 'must be a string');
  if (!isObject(rec.magic)) throw new Bad('magic', 'must be an object');
  for (const field of ['stageIndex', 'tick', 'lastEventSeq'] as const) integer(rec[field], field, 0);
  integer(rec.furthest, 'furthest', -1);
  if (rec.appStoreUrl !== null && typeof rec.appStoreUrl !== 'string')
    throw new Bad('appStoreUrl', 'must be a string or null');
  if (!isObject(rec.artifactTimes)) throw new Bad('artifactTimes', 'must be an object');
  for (const [kind, at] of Object.entries(rec.artifactTimes)) time(at, `artifactTimes.${kind}`);
  if (!isObject(rec.artifactInputs)) throw new Bad('artifactInputs', 'must be an object');
}

/** A gate, its decisions included (a snapshot from before they were kept has none: it is upgraded on import). */
function checkGate(value: unknown, name: string): void {
  const gate = shape(Gate, value, `gates.${name}`);
  if (gate.name !== name) throw new Bad(`gates.${name}.name`, `must be ${name}`);
  oneOf(gate.state, GATE_STATES, `gates.${name}.state`);
  if (gate.decided_at !== null) time(gate.decided_at, `gates.${name}.decided_at`);
  gate.history?.forEach((entry, i) => {
    oneOf(entry.decision, GATE_DECISIONS, `gates.${name}.history.${i}.decision`);
    time(entry.decided_at, `gates.${name}.history.${i}.decided_at`);
  });
}

function checkEvent(ev: Record<string, unknown>, runId: string): void {
  if (typeof ev.type !== 'string') throw new Bad('type', 'must be a string');
  const body = envelope(ev.json, 'json');
  if (body.run_id !== runId) throw new Bad('json.run_id', `must be the run it is listed under, ${runId}`);
  if (body.type !== ev.type) throw new Bad('json.type', `must be the event's type, ${ev.type}`);
  if (ev.type !== LOG_EVENT) oneOf(ev.type, EVENT_KINDS, 'type');
}

function checkWebhook(w: Record<string, unknown>, ids: Set<string>): void {
  unique(ids, id(w.id, 'wh', 'id'), 'id');
  try {
    webhookTarget({ url: w.url, events: w.events });
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    throw new Bad(err.field ?? '', err.message.replace(new RegExp(`^${err.field}:? `), ''));
  }
  if (typeof w.secret !== 'string' || !/^whsec_\S+$/.test(w.secret))
    throw new Bad('secret', 'must be a whsec_… secret');
  oneOf(w.status, WEBHOOK_STATUSES, 'status');
  time(w.created_at, 'created_at');
}

function checkDelivery(d: Record<string, unknown>, ids: Set<string>, webhooks: Set<string>): void {
  const view = shape(Delivery, d, '');
  unique(ids, id(view.id, 'dlv', 'id'), 'id');
  if (!webhooks.has(id(d.webhook_id, 'wh', 'webhook_id')))
    throw new Bad('webhook_id', `no webhook ${JSON.stringify(d.webhook_id)} in the snapshot`);
  id(view.event_id, 'evt', 'event_id');
  oneOf(view.event_type, EVENT_KINDS, 'event_type');
  oneOf(view.status, DELIVERY_STATUSES, 'status');
  integer(view.attempts, 'attempts', 0);
  integer(d.max_attempts, 'max_attempts', 1);
  if (d.round_base !== undefined) integer(d.round_base, 'round_base', 0);
  if (view.last_status_code !== null) integer(view.last_status_code, 'last_status_code', 100);
  if (view.next_attempt_at !== null) time(view.next_attempt_at, 'next_attempt_at');
  time(view.created_at, 'created_at');
  const body = envelope(d.body, 'body');
  if (body.id !== view.event_id) throw new Bad('body.id', `must be the delivery's event_id, ${view.event_id}`);
}

/** An event envelope held as one line of JSON, as the API sends it. */
function envelope(json: unknown, field: string): Event {
  if (typeof json !== 'string') throw new Bad(field, 'must be an event as a JSON string');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new Bad(field, `not JSON (${(err as Error).message})`);
  }
  // most events take the quick path: thousands of log lines need not each go through zod
  const ev = isPlainEvent(value) ? value : shape(Event, value, field);
  id(ev.id, 'evt', `${field}.id`);
  id(ev.run_id, 'run', `${field}.run_id`);
  time(ev.created_at, `${field}.created_at`);
  return ev;
}

function shape<T extends z.ZodMiniType>(schema: T, value: unknown, field: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = describeIssue(parsed.error.issues, value, field ? [field] : []);
  throw new Bad(issue.field, issue.message);
}

/** An id as the API makes them: its prefix, and nothing a path or a header must not carry. */
function id(value: unknown, prefix: string, field: string): string {
  if (typeof value !== 'string') throw new Bad(field, `must be a ${prefix}_… id`);
  const prefixed = value.startsWith(`${prefix}_`) && value.length > prefix.length + 1;
  const problem = idProblem(value) ?? (prefixed ? null : `must be a ${prefix}_… id`);
  if (problem) throw new Bad(field, problem);
  return value;
}

/** A time as the API writes them: ISO 8601 in UTC, to the millisecond. */
function time(value: unknown, field: string): void {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString() !== value)
    throw new Bad(field, 'must be a time like 2026-11-22T10:00:00.000Z');
}

function oneOf(value: unknown, allowed: readonly string[], field: string): void {
  if (!allowed.includes(value as string))
    throw new Bad(field, `must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`);
}

function integer(value: unknown, field: string, min = 0): number {
  if (!Number.isSafeInteger(value) || (value as number) < min)
    throw new Bad(field, `must be a whole number from ${min}`);
  return value as number;
}

function unique<T>(seen: Set<T>, value: T, field: string): void {
  if (seen.has(value)) throw new Bad(field, `${JSON.stringify(value)} appears twice`);
  seen.add(value);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
