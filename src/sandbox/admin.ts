// The admin API under /_sandbox/, with the sandbox's key: how `orc sandbox clock|advance|trigger|fault|
// reset|export|logs` (and a user's own tests, in any language) steer it. Every effect on runs goes through
// the same pipeline, stream and signed webhooks as a natural run. The routes:
//
//   GET    /_sandbox/clock                    { mode, now, next_due, runs: [{ id, status, stage, gate_pending }] }
//   POST   /_sandbox/clock/advance            { by?, run?, to? }: by a duration ("90s", "3h", ms as a number);
//                                             with run, that run alone; to: a stage, "gate:NAME" or "end"
//   POST   /_sandbox/trigger                  { kind, run?, stage?, gate?, error?, reason?, passed? } → { run, event }
//   GET    /_sandbox/faults                   { data: [fault] };  POST adds one;  DELETE clears them
//   DELETE /_sandbox/faults/{id}              { id, removed: true }
//   POST   /_sandbox/reset                    empties runs, webhooks, deliveries, faults (keeps key and knobs)
//   GET    /_sandbox/export                   the snapshot: { format, schema, exported_at, runs, events, webhooks, deliveries }
//   GET    /_sandbox/logs?after=N&limit=M     { data: [entry], last }; with ?follow=1, an event stream of them
//   GET    /_sandbox/events[?logs=1]          an event stream of every run's events from now on (the console's
//                                             runs list); `event: sandbox.reset` after a reset
//   POST   /_sandbox/console                  { url, expires_at }: a one-time link to the web console
//   GET    /_sandbox/stats                    { memory: { rss, heap_used, heap_total, external }, webhooks: {
//                                             deliveries_in_play, events_queued, webhooks_behind } }
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LAST_TIME, type Clock } from '../lib/clock.js';
import { EVENT_KINDS, GATE_NAMES, STAGES, TERMINAL_STATUSES } from '../contract/events.js';
import { parseDuration } from '../lib/duration.js';
import type {
  AdvanceResult,
  ClockView,
  FaultList,
  FaultRemoved,
  FaultsCleared,
  JournalPage,
  ResetDone,
  SandboxStats,
  TriggerResult,
} from '../contract/sandbox-control.js';
import { Faults, type Journal } from './control.js';
import type { ConsoleDoor } from './console.js';
import { Failure } from './failure.js';
import { ManualClock } from './manual-clock.js';
import type { Route } from './router.js';
import type { SandboxService } from './service.js';
import { checkSnapshot, writeSnapshot, type Snapshot } from './snapshot.js';
import type { SseHub } from './sse-hub.js';
import type { Store, RunRecord } from './store.js';
import type { WebhookDispatcher } from './webhooks.js';

export const SNAPSHOT_FORMAT = 'orc-sandbox-snapshot';
export const SNAPSHOT_SCHEMA = 2;

export interface AdminParts {
  clock: Clock;
  /** Real time, for waits on real work (a build being described). */
  wallClock: Clock;
  service: SandboxService;
  dispatcher: WebhookDispatcher;
  hub: SseHub;
  store: Store;
  faults: Faults;
  journal: Journal;
  door: ConsoleDoor;
}

/** An admin route's JSON answer: its status and the value, encoded when sent. */
type JsonReply = { status: number; value: unknown };

/** A snapshot's text, checked: its format, a schema this sandbox reads, and the four lists. */
export function readSnapshot(text: string): ReturnType<Store['snapshot']> {
  let snap: Record<string, unknown>;
  try {
    snap = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw Object.assign(new Error(`not a sandbox snapshot: ${(err as Error).message}`), {
      code: 'ERR_SANDBOX_SNAPSHOT',
    });
  }
  if (snap?.format !== SNAPSHOT_FORMAT)
    throw Object.assign(new Error(`not a sandbox snapshot (its format is not ${SNAPSHOT_FORMAT})`), {
      code: 'ERR_SANDBOX_SNAPSHOT',
    });
  if (snap.schema !== SNAPSHOT_SCHEMA)
    throw Object.assign(
      new Error(`a snapshot of schema ${String(snap.schema)}; this orc reads schema ${SNAPSHOT_SCHEMA}`),
      { code: 'ERR_SANDBOX_SNAPSHOT' },
    );
  if (
    !Array.isArray(snap.runs) ||
    !Array.isArray(snap.webhooks) ||
    !Array.isArray(snap.deliveries) ||
    typeof snap.events !== 'object' ||
    snap.events === null
  )
    throw Object.assign(new Error('a sandbox snapshot needs runs, events, webhooks and deliveries'), {
      code: 'ERR_SANDBOX_SNAPSHOT',
    });
  checkSnapshot(snap as unknown as Snapshot);
  return snap as unknown as ReturnType<Store['snapshot']>;
}

/** A snapshot file (what `orc sandbox export` wrote), read and checked; an Error saying why not. */
export function readSnapshotFile(file: string): ReturnType<Store['snapshot']> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw Object.assign(new Error(e.code === 'ENOENT' ? 'no such file' : e.message), { code: 'ERR_SANDBOX_SNAPSHOT' });
  }
  return readSnapshot(text);
}

/** What an admin route gets: the request, its path parameters, its query, and its body on demand. */
export interface AdminCall {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  body: () => Promise<unknown>;
}

/** An admin route answers JSON, or (an export, a stream) writes its answer itself. */
export type AdminHandler = (call: AdminCall) => Promise<JsonReply | void> | JsonReply | void;

/** The admin API as routes of the sandbox's one table (server.ts). */
export function adminRoutes(parts: AdminParts): Array<Route<AdminHandler>> {
  const { faults } = parts;
  const ok = (value: unknown): JsonReply => ({ status: 200, value });
  return [
    { method: 'GET', pattern: '/_sandbox/clock', handler: () => ok(clockView(parts)) },
    {
      method: 'POST',
      pattern: '/_sandbox/clock/advance',
      handler: async ({ body }) => ok(await advance(parts, object(await body()))),
    },
    {
      method: 'POST',
      pattern: '/_sandbox/trigger',
      handler: async ({ body }) => ok(await trigger(parts, object(await body()))),
    },
    { method: 'GET', pattern: '/_sandbox/faults', handler: () => ok({ data: faults.list() } satisfies FaultList) },
    {
      method: 'POST',
      pattern: '/_sandbox/faults',
      handler: async ({ body }) => ({ status: 201, value: faults.add(await body()) }),
    },
    {
      method: 'DELETE',
      pattern: '/_sandbox/faults',
      handler: () => {
        faults.clear();
        return ok({ cleared: true } satisfies FaultsCleared);
      },
    },
    {
      method: 'DELETE',
      pattern: '/_sandbox/faults/{id}',
      handler: ({ params }) => ok(removeFault(faults, params.id!)),
    },
    { method: 'POST', pattern: '/_sandbox/reset', handler: () => ok(reset(parts)) },
    { method: 'GET', pattern: '/_sandbox/export', handler: ({ res }) => exportSnapshot(parts, res) },
    {
      method: 'POST',
      pattern: '/_sandbox/console',
      handler: ({ req }) => ({ status: 201, value: parts.door.mint(req.headers.host) }),
    },
    {
      method: 'GET',
      pattern: '/_sandbox/events',
      handler: ({ req, res, query }) => parts.hub.openFirehose(req, res, query.get('logs') === '1'),
    },
    { method: 'GET', pattern: '/_sandbox/logs', handler: (call) => logs(parts.journal, parts.hub, call) },
    { method: 'GET', pattern: '/_sandbox/stats', handler: () => ok(stats(parts.dispatcher)) },
  ];
}

function stats(dispatcher: WebhookDispatcher): SandboxStats {
  const m = process.memoryUsage();
  const held = dispatcher.held();
  return {
    memory: { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external },
    webhooks: {
      deliveries_in_play: held.inPlay,
      events_queued: held.queuedEvents,
      webhooks_behind: held.webhooksBehind,
    },
  };
}

function removeFault(faults: Faults, id: string): FaultRemoved {
  if (!faults.remove(id)) throw new Failure('fault_not_found', `no fault ${id}`, 'id');
  return { id, removed: true };
}

/** Empties runs, webhooks, deliveries and faults; the key and the knobs stay. */
function reset({ service, dispatcher, hub, store, faults }: AdminParts): ResetDone {
  service.forgetRuns();
  dispatcher.reset();
  hub.closeAll();
  store.clearAll();
  faults.clear();
  return { reset: true };
}

function exportSnapshot({ clock, store }: AdminParts, res: ServerResponse) {
  const head = { format: SNAPSHOT_FORMAT, schema: SNAPSHOT_SCHEMA, exported_at: new Date(clock.now()).toISOString() };
  return writeSnapshot(res, head, store.snapshotAt());
}

function logs(journal: Journal, hub: SseHub, { req, res, query }: AdminCall): JsonReply | void {
  const after = Number(query.get('after') ?? 0) || 0;
  if (query.get('follow') === '1' || query.get('follow') === 'true') {
    // Through the one SSE writer: keep-alives, and a follower that stops reading is dropped, not buffered.
    const stream = hub.writer.open(req, res);
    stream.write(journal.since(after).map(entryFrame).join(''));
    const stop = journal.follow((e) => stream.write(entryFrame(e)));
    res.on('close', stop);
    return;
  }
  const limit = Math.min(Math.max(Number(query.get('limit') ?? journal.size) || journal.size, 1), journal.size);
  const data = journal.since(after, limit);
  return { status: 200, value: { data, last: data.at(-1)?.seq ?? after } satisfies JournalPage };
}

const entryFrame = (e: { seq: number }) => `id: ${e.seq}\nevent: entry\ndata: ${JSON.stringify(e)}\n\n`;

function object(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new Failure('invalid_value', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

function clockView({ clock, service }: AdminParts): ClockView {
  const manual = clock instanceof ManualClock;
  const next = manual ? clock.nextAt() : null;
  return {
    mode: manual ? 'manual' : 'real',
    now: new Date(clock.now()).toISOString(),
    next_due: next === null ? null : new Date(next).toISOString(),
    runs: service
      .moving()
      .map((r) => ({ id: r.run.id, status: r.run.status, stage: r.run.stage, gate_pending: r.run.gate_pending })),
  };
}

function durationOf(v: unknown, field: string): number {
  const ms = typeof v === 'number' ? v : typeof v === 'string' ? parseDuration(v) : null;
  if (ms === null || !(ms >= 0))
    throw new Failure(
      'invalid_value',
      `${field} must be a duration: 90s, 15m, 3h, 2d, plain seconds, or a number of ms`,
      field,
    );
  return ms;
}

/** `to`: a stage, `gate:NAME` or `end`, as a test on the run. */
function target(to: unknown): (rec: RunRecord) => boolean {
  if (typeof to !== 'string') throw new Failure('invalid_value', 'to must be a stage, gate:NAME or end', 'to');
  if (to === 'end') return (r) => TERMINAL_STATUSES.has(r.run.status);
  if (to.startsWith('gate:')) {
    const gate = to.slice(5);
    if (!(GATE_NAMES as readonly string[]).includes(gate))
      throw new Failure('invalid_value', `gate must be one of ${GATE_NAMES.join(', ')}`, 'to');
    return (r) => r.run.gate_pending === gate;
  }
  const index = (STAGES as readonly string[]).indexOf(to);
  if (index < 0) throw new Failure('invalid_value', `to must be end, gate:NAME or a stage: ${STAGES.join(', ')}`, 'to');
  return (r) => STAGES.indexOf(r.run.stage as (typeof STAGES)[number]) >= index || TERMINAL_STATUSES.has(r.run.status);
}

async function advance(parts: AdminParts, b: Record<string, unknown>): Promise<AdvanceResult> {
  const { clock, service } = parts;
  if (b.run !== undefined) {
    const id = String(b.run);
    service.getRun(id);
    const until = b.to !== undefined ? target(b.to) : undefined;
    const budgetMs = b.by !== undefined ? durationOf(b.by, 'by') : undefined;
    if (!until && budgetMs === undefined)
      throw new Failure('missing_field', 'advance a run --by a duration or --to a point', 'by');
    // A run driven to a later point passes the gates before it (approved); it stops at the one it is sent to.
    const step = await service.stepRun(id, {
      ...(until ? { until, approve: true } : {}),
      ...(budgetMs !== undefined ? { budgetMs } : {}),
    });
    const run = service.getRun(id).run;
    return { ...clockView(parts), run, reached: until ? step.reached : undefined, ticks: step.ticks };
  }
  if (b.to !== undefined) throw new Failure('invalid_value', 'to needs a run: advance <run> --to …', 'to');
  if (!(clock instanceof ManualClock))
    throw new Failure(
      'invalid_value',
      'the clock is real: start the sandbox with --clock manual to advance it (or advance one run: advance <run> --by …)',
      'by',
    );
  const by = durationOf(b.by ?? 0, 'by');
  const end = clock.now() + by;
  if (!(end <= LAST_TIME))
    throw new Failure(
      'invalid_value',
      `by moves the clock past the year 9999: at most ${Math.floor((LAST_TIME - clock.now()) / 86_400_000)}d from now`,
      'by',
    );
  // Describing a build is real work (hashing the ipa) that takes no virtual time: a run that reaches
  // 08_submission stops the advance until its build is described (or 10 s of real time pass), then time
  // flows on, so `advance --by 1d` ends a run whose build was made on the way. Each run is waited for once.
  const awaited = new Set<string>();
  const newlyWaiting = () => service.waitingForBuild().filter((id) => !awaited.has(id));
  let fired = 0;
  for (;;) {
    const step = clock.advanceTo(end, () => newlyWaiting().length > 0);
    fired += step.fired;
    if (!step.stopped) break;
    const ids = newlyWaiting();
    for (const id of ids) awaited.add(id);
    let cancel = () => {};
    await Promise.race([
      (async () => {
        while (ids.some((id) => service.waitingForBuild().includes(id))) await service.nextBuildDescribed();
      })(),
      new Promise<void>((resolve) => (cancel = parts.wallClock.timer(10_000, resolve))),
    ]);
    cancel();
  }
  // What the timers started (a webhook delivery) finishes on its own; the answer says where time is.
  return { ...clockView(parts), fired };
}

/** `to` as a trigger names it, in its own field (`stage`, `gate`). */
function targetAs(to: string, field: string): (rec: RunRecord) => boolean {
  try {
    return target(to);
  } catch (err) {
    if (err instanceof Failure)
      throw new Failure('invalid_value', err.message.replace(/^to must be/, `${field} must be`), field);
    throw err;
  }
}

async function trigger(parts: AdminParts, b: Record<string, unknown>): Promise<TriggerResult> {
  const { service } = parts;
  // Everything is checked before a fixture run is made: a refused trigger leaves nothing behind.
  const asked = triggerAsked(service, b);
  const id = (b.run !== undefined ? service.getRun(String(b.run)) : fixtureRun(service, asked.kind, b)).run.id;
  await produce(service, id, asked, b);
  const done = service.getRun(id);
  const event = service
    .eventsOf(id)
    .filter((e) => e.type === asked.kind)
    .at(-1);
  if (!event)
    throw new Failure(
      'run_not_active',
      `run ${id} is ${done.run.status} at ${done.run.stage}: it cannot produce ${asked.kind} now`,
      'run',
    );
  return { run: done.run, event: JSON.parse(event.json) };
}

/** What a trigger asks for, checked: the event kind, the gate it names, the stage it drives a run to. */
interface TriggerAsked {
  kind: string;
  gate: string;
  until: ((rec: RunRecord) => boolean) | undefined;
}

function triggerAsked(service: SandboxService, b: Record<string, unknown>): TriggerAsked {
  const kind = String(b.kind ?? '');
  if (!(EVENT_KINDS as readonly string[]).includes(kind))
    throw new Failure('invalid_value', `kind must be one of ${EVENT_KINDS.join(', ')}`, 'kind');
  const gateOf = (v: unknown) => {
    const g = String(v ?? 'idea');
    if (!(GATE_NAMES as readonly string[]).includes(g))
      throw new Failure('invalid_value', `gate must be one of ${GATE_NAMES.join(', ')}`, 'gate');
    return g;
  };
  const gate = kind === 'run.gate_pending' || kind === 'run.gate_resolved' ? gateOf(b.gate ?? b.stage) : 'idea';
  const stage =
    kind === 'run.failed' ? String(b.stage ?? '05_build') : b.stage !== undefined ? String(b.stage) : undefined;
  const until =
    stage !== undefined && (kind === 'run.failed' || kind === 'run.stage_changed')
      ? targetAs(stage, 'stage')
      : undefined;
  if (b.run !== undefined) {
    const rec = service.getRun(String(b.run));
    // An ended run makes no more events: a second terminal event would be delivered as if it were new.
    if (TERMINAL_STATUSES.has(rec.run.status))
      throw new Failure(
        'run_not_active',
        `run ${rec.run.id} is ${rec.run.status}: it cannot produce ${kind} now`,
        'run',
      );
  }
  return { kind, gate, until };
}

/** A run made for the trigger; `#lowscore` in its pitch makes it score below the bar (run.scored, passed: false). */
function fixtureRun(service: SandboxService, kind: string, b: Record<string, unknown>): RunRecord {
  const lowscore = kind === 'run.scored' && b.passed === false;
  return service.createRun({
    mode: 'idea',
    idea: {
      pitch: `A fixture run for ${kind}${lowscore ? ' #lowscore' : ''}`,
      audience: 'testers',
      monetization: 'free',
    },
  } as never);
}

/** Drives the run through the pipeline until it makes the event asked for. */
async function produce(service: SandboxService, id: string, asked: TriggerAsked, b: Record<string, unknown>) {
  const { kind, gate, until } = asked;
  const step = (to: (r: RunRecord) => boolean) => service.stepRun(id, { until: to, approve: true });
  switch (kind) {
    case 'run.created':
      break;
    case 'run.stage_changed':
      if (until) await step(until);
      else await service.stepRun(id, { budgetMs: service.tickLength });
      break;
    case 'run.gate_pending':
      await step(target(`gate:${gate}`));
      break;
    case 'run.gate_resolved': {
      await step(target(`gate:${gate}`));
      if (service.getRun(id).run.gate_pending === gate)
        service.decide(id, gate, b.reason ? 'rejected' : 'approved', b.reason ? String(b.reason) : null);
      break;
    }
    case 'run.scored':
      await step((r) => r.scorecard !== null);
      break;
    case 'run.accepted':
      await step(target('end'));
      break;
    case 'run.rejected':
      await step(target('09_review'));
      service.rejectRun(id, b.reason ? String(b.reason) : 'App review found a guideline issue (triggered)');
      break;
    case 'run.failed':
      await step(until!);
      service.failRun(id, triggeredError(b.error));
      break;
    case 'run.canceled':
      service.cancel(id);
      break;
  }
}

/** `error` as `code: message`, or a message alone under the code `triggered`. */
function triggeredError(error: unknown): { code: string; message: string } {
  const text = error ? String(error) : 'build_failed: the build failed (triggered)';
  const colon = text.indexOf(':');
  return colon > 0
    ? { code: text.slice(0, colon).trim(), message: text.slice(colon + 1).trim() }
    : { code: 'triggered', message: text };
}
