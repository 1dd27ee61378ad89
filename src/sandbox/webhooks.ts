// Webhook registrations and the dispatcher: signed, at-least-once deliveries with exponential backoff
// and jitter, run off the request path so a slow or dead receiver never slows the API. Each webhook has
// a few deliveries in flight at most, so a hanging receiver only delays itself, never its neighbours.
import { backoff } from '../lib/backoff.js';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { isoNow, type Clock } from '../lib/clock.js';
import { EVENT_KINDS, LOG_EVENT } from '../contract/events.js';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../contract/signature.js';
import { webhookUrlProblem } from '../contract/keys.js';
import { WebhookCreateParams, type Delivery, type Webhook } from '../contract/schemas.js';
import { Poster, type PostTarget } from './deliver.js';
import { retentionSaid } from './retention.js';
import { Failure, failureFromZod } from './failure.js';
import type { Sequence } from './page.js';
import { SeqList } from './seq-list.js';
import { newId } from './service.js';
import { deliveryId, type DeliveryRecord, type StoredEvent, type Store, type WebhookRecord } from './store.js';

export const MAX_ATTEMPTS = 8;
const DELIVERY_TIMEOUT_MS = 10_000;
/** Deliveries in flight to one webhook at once, and to all of them. */
const PER_WEBHOOK_IN_FLIGHT = 4;
const MAX_IN_FLIGHT = 128;
/** How long one turn may spend fanning events out into deliveries before requests are served again (ms). */
const SLICE_MS = 2;
/** Deliveries made for one webhook and not yet tried, at most: the rest of its events wait as events. */
const FRESH_PER_WEBHOOK = 16;
/** Deliveries of one webhook in play (made, or pending a retry), at most: a receiver that refuses every
 * attempt holds this many in memory, never every event of the last minutes. */
const IN_PLAY_PER_WEBHOOK = 256;
/** How far (in events) a webhook may fall behind the newest before it reads its events from the database
 * instead of the queue in memory: the queue holds this many at most for a receiver that hangs. */
const QUEUE_BEHIND_MAX = 8192;
/** Events read at a time by a webhook fallen behind. */
const BEHIND_CHUNK = 64;
/**
 * Finished attempts are written together once this many wait, or the first of them has waited this long
 * (on the network clock: real time even when the service's clock is steered), or nothing else is in flight.
 * Under the fan-out bench's load one transaction a turn meant hundreds of small commits a second, and a
 * commit of the in-memory database walks SQLite's page cache (pcache1Truncate, a share of the sandbox's CPU
 * in perf: docs/figures.md); the record of an attempt is at most this late.
 */
const RECORD_BATCH = 512;
const RECORD_MS = 20;

export interface DispatcherOptions {
  retryBaseMs: number;
  /** How many deliveries are kept (retention.ts), for the answer about one that expired. */
  keepDeliveries: number;
  userAgent: string;
  clock: Clock;
  /** For a delivery's network timeout: real time even when `clock` is steered. */
  wallClock?: Clock;
  /** An injected fault for this delivery attempt (answered by the sandbox as failed, the receiver not called). */
  faultFor?: (webhookId: string) => { id: string } | null;
  /** Bounds on what is held in memory (IN_PLAY_PER_WEBHOOK, QUEUE_BEHIND_MAX), smaller in a test. */
  limits?: { inPlayPerWebhook?: number; queueBehindMax?: number };
  /** Told after each batch of attempts is recorded (retention checks its cap then). */
  onRecorded?: () => void;
  /** Told of every attempt, for the journal. */
  onAttempt?: (a: {
    webhook_id: string;
    delivery_id: string;
    url: string;
    status: number | null;
    ms: number;
    error: string | null;
    fault: string | null;
  }) => void;
  log: (line: string) => void;
}

/** A webhook's URL as the poster takes it. */
interface Target extends PostTarget {
  url: string;
}

export function webhookView(w: WebhookRecord): Webhook {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    status: w.status === 'deleted' ? 'disabled' : 'enabled',
    created_at: w.created_at,
  };
}

export function deliveryView(d: DeliveryRecord): Delivery {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    next_attempt_at: d.next_attempt_at,
    created_at: d.created_at,
  };
}

/** A webhook's url and events as POST /v1/webhooks takes them (and a snapshot's webhooks are held to), or
 * the Failure that names the field at fault. */
export function webhookTarget(body: unknown): WebhookCreateParams {
  const parsed = WebhookCreateParams.safeParse(body);
  if (!parsed.success) {
    const f = failureFromZod(parsed.error, body);
    if (f.field?.startsWith('events'))
      throw new Failure(f.code, `events: kinds of ${EVENT_KINDS.join(', ')}, or ["*"]`, 'events');
    throw f;
  }
  // The one rule, orc's own (contract/keys.ts): https://, or http:// to this machine; no credentials in it (they
  // would be stored, listed and echoed with it).
  const problem = webhookUrlProblem(parsed.data.url);
  if (problem) throw new Failure('invalid_value', `url: ${problem}`, 'url');
  return parsed.data;
}

export class WebhookDispatcher {
  /** The one timer for the next due delivery (its cancel function). */
  private timer: (() => void) | null = null;
  /** Deliveries are known by seq inside (their ids say it: store.ts, deliveryId). */
  private readonly inFlight = new Set<number>();
  private readonly inFlightByWebhook = new Map<string, number>();
  private readonly aborts = new Set<AbortController>();
  private stopped = false;
  // Indexes over the stored deliveries, so the work of an event or a kick is proportional to the
  // deliveries in play, never to every delivery ever stored (with 20 webhooks, walking them all made
  // /healthz take seconds). Ids are added once their write is made; the store stays the truth for status.
  /** Pending deliveries not yet taken, by when they are due: a kick looks only at the ones due now. */
  private readonly due = new DueQueue();
  /** Due deliveries each webhook has waiting for a free slot (its own limit, or the whole one), in order
   * from `head` (taken from the front without moving the rest). */
  private readonly ready = new Map<string, { ids: number[]; head: number }>();
  /** The seqs of each webhook's deliveries kept, oldest first (its list: a page reads its records by seq). */
  private readonly byWebhook = new Map<string, SeqList>();
  /** Committed events not yet fanned out to every webhook; `fanBase` numbers the first of them. */
  private fanQueue: StoredEvent[] = [];
  private fanBase = 0;
  /** Each webhook's place in the events (the number of the next one to fan out to it). */
  private readonly cursors = new Map<string, number>();
  /** Each webhook's fan-out position as stored (Store.saveFanoutPosition), and as memory has it: the place
   * (StoredEvent.pos) of the last event it has passed, and its deliveries made but not yet written, with the
   * place of their events, oldest first. What is stored never passes a delivery not yet written. */
  private readonly storedAt = new Map<string, number>();
  private readonly passed = new Map<string, number>();
  private readonly unwritten = new Map<string, Map<number, number>>();
  /** After a restart, the deliveries already written for the events of the backlog (webhook id, event place). */
  private readonly madeBefore = new Set<string>();
  /** The webhooks fallen behind (a receiver that hangs, or refuses; every webhook after a restart): each
   * reads its own events from the database a chunk at a time, after `pos` (the last it passed), so the queue
   * in memory is let go without them. One that has read every event written takes its place in the queue. */
  private readonly behind = new Map<string, { pos: number; events: StoredEvent[]; next: number }>();
  /** Deliveries made and not yet tried, and how many of them each webhook has. */
  private readonly fresh = new Set<number>();
  private readonly freshBy = new Map<string, number>();
  /** Attempts finished, not yet recorded: written together, in one transaction (recordInTime). */
  private finished: Array<{ seq: number; status: number | null }> = [];
  /** When the first of `finished` came (network time), and the timer that records it in time (its cancel). */
  private finishedSince = 0;
  private recordTimer: (() => void) | null = null;
  private turnQueued = false;
  private readonly poster = new Poster();
  private readonly targets = new Map<string, Target>();
  private readonly bodies = new Map<string, Buffer>();

  constructor(
    private readonly store: Store,
    private readonly opts: DispatcherOptions,
  ) {
    for (const place of store.deliveryPlaces()) this.listOf(place.webhook_id).push(place.seq);
    for (const d of store.liveDeliveries()) this.track(d, false);
  }

  private listOf(webhookId: string): SeqList {
    let list = this.byWebhook.get(webhookId);
    if (!list) this.byWebhook.set(webhookId, (list = new SeqList()));
    return list;
  }

  private track(d: DeliveryRecord, isNew: boolean): void {
    if (d.status === 'pending') this.due.push(d.next_attempt_at ? Date.parse(d.next_attempt_at) : 0, d.seq);
    if (isNew) this.listOf(d.webhook_id).push(d.seq);
  }

  /** Retention (retention.ts): the deliveries below `seq` have expired, but those in play. */
  forgetBelow(seq: number): void {
    this.store.pruneDeliveries(seq);
    const inPlay = (s: number) => this.store.liveDelivery(s) !== undefined;
    for (const list of this.byWebhook.values()) list.dropBelow(seq, inPlay);
  }

  register(body: unknown): WebhookRecord {
    const target = webhookTarget(body);
    const w: WebhookRecord = {
      seq: this.store.nextSeq(),
      id: newId('wh'),
      url: target.url,
      events: [...new Set(target.events as string[])],
      secret: `whsec_${randomBytes(24).toString('base64url')}`,
      status: 'enabled',
      created_at: isoNow(this.opts.clock),
    };
    const pos = this.store.lastEventPos();
    this.store.transaction(() => {
      this.store.saveWebhook(w);
      this.store.saveFanoutPosition(w.id, pos);
    });
    this.cursors.set(w.id, this.fanBase + this.fanQueue.length); // the events from now on
    this.passed.set(w.id, pos);
    this.storedAt.set(w.id, pos);
    return w;
  }

  get(id: string): WebhookRecord {
    const w = this.store.webhooks.get(id);
    if (!w || w.status === 'deleted')
      throw new Failure('webhook_not_found', `no webhook with id ${JSON.stringify(id)}`, 'id');
    return w;
  }

  /** Enabled webhooks, oldest first. */
  list(): WebhookRecord[] {
    return [...this.store.webhooks.values()].filter((w) => w.status === 'enabled');
  }

  /** The deliveries of one webhook, oldest first, as a view, never copied: a page of them (page.ts) finds
   * its place by seq and reads only its own records. Every seq listed is kept in the store: both let go
   * together (reset, retention), and none is removed alone. */
  deliveryList(webhookId: string): Sequence<DeliveryRecord> & { seqAt(i: number): number } {
    const seqs = this.byWebhook.get(webhookId) ?? new SeqList();
    return {
      get length() {
        return seqs.length;
      },
      seqAt: (i) => seqs.at(i)!,
      at: (i) => this.store.deliveryAt(seqs.at(i)!),
    };
  }

  remove(id: string): void {
    const w = this.get(id);
    for (const seq of this.fresh) if (this.store.liveDelivery(seq)?.webhook_id === id) this.fresh.delete(seq);
    this.store.transaction(() => {
      this.store.saveWebhook({ ...w, status: 'deleted' });
      for (const d of this.store.liveDeliveries())
        if (d.webhook_id === id) this.store.saveDelivery({ ...d, status: 'failed', next_attempt_at: null });
    });
    // (nothing of it stays: its list is no longer asked for, its rows go with the others')
    for (const map of [this.cursors, this.behind, this.freshBy, this.unwritten, this.passed, this.storedAt])
      map.delete(id);
    this.targets.delete(id);
    this.byWebhook.delete(id);
  }

  redeliver(webhookId: string, deliveryId: string): DeliveryRecord {
    this.get(webhookId);
    const d = this.store.delivery(deliveryId);
    if (!d || d.webhook_id !== webhookId)
      throw new Failure(
        'delivery_not_found',
        this.store.expired(deliveryId)
          ? `delivery ${JSON.stringify(deliveryId)} has expired: the sandbox keeps deliveries ${retentionSaid(this.opts.keepDeliveries)}`
          : `no delivery with id ${JSON.stringify(deliveryId)} on webhook ${webhookId}`,
        'delivery_id',
      );
    if (typeof d.body !== 'string')
      throw new Failure(
        'delivery_not_found',
        `delivery ${JSON.stringify(deliveryId)} has expired: its event is no longer kept (the sandbox keeps events ${retentionSaid(this.opts.keepDeliveries)})`,
        'delivery_id',
      );
    // A new round of attempts, whose backoff starts afresh from the first step.
    const queued: DeliveryRecord = {
      ...d,
      status: 'pending',
      max_attempts: d.attempts + MAX_ATTEMPTS,
      round_base: d.attempts,
      next_attempt_at: isoNow(this.opts.clock),
    };
    this.store.transaction(() => this.store.saveDelivery(queued));
    this.track(queued, false);
    // Inside a request's transaction, memory has the delivery queued only once that commits.
    this.store.afterCommit(() => this.kick());
    return queued;
  }

  /**
   * Called for every committed event: queued, and fanned out (one delivery per matching webhook, written
   * with its first attempt) a slice at a time, off the request path. With 100 webhooks on every event, making
   * an event's deliveries at once, event after event, held the event loop for seconds (/healthz waited).
   */
  onEvent = (_runId: string, ev: StoredEvent): void => {
    if (ev.type === LOG_EVENT || this.stopped) return;
    // (an event no webhook in the queue takes is not kept: a webhook registered later begins with what comes
    // then, and one fallen behind reads it from the database)
    let wanted = false;
    for (const w of this.store.webhooks.values())
      if (w.status === 'enabled' && !this.behind.has(w.id) && (w.events.includes('*') || w.events.includes(ev.type)))
        wanted = true;
    if (!wanted) {
      // every webhook is past it (when none is behind), so their positions move on without it
      if (this.fanQueue.length === 0 && ev.pos !== undefined)
        for (const id of this.passed.keys()) if (!this.behind.has(id)) this.passed.set(id, ev.pos);
      return;
    }
    this.fanQueue.push(ev);
    this.soon();
  };

  /**
   * Fans events out into deliveries for a slice of time, each webhook in turn from its own place, never more
   * than FRESH_PER_WEBHOOK of its deliveries made and not yet tried, nor IN_PLAY_PER_WEBHOOK in play: what a
   * receiver cannot take yet waits as the one event it is (not a record per webhook), in the queue or, once
   * it is far behind, in the database; one slow receiver holds back only its own. What is left waits for the
   * next turn, or for a delivery to be tried.
   */
  private fanOut(): void {
    const until = performance.now() + SLICE_MS;
    const end = this.fanBase + this.fanQueue.length;
    const made: Array<{ d: DeliveryRecord; at: number }> = [];
    const madeBy = new Map<string, number>();
    const webhooks = this.list();
    for (let progress = true; progress && performance.now() < until; ) {
      progress = false;
      for (const w of webhooks) {
        let room = this.roomOf(w.id) - (madeBy.get(w.id) ?? 0);
        // a few at a time, so that every webhook gets its turn within the slice
        for (let n = 0; n < 8 && room > 0; n++) {
          const ev = this.nextFor(w.id, end);
          if (!ev) break;
          progress = true;
          this.passed.set(w.id, ev.pos ?? 0);
          if (!(w.events.includes('*') || w.events.includes(ev.type))) continue;
          if (this.madeBefore.delete(`${w.id} ${ev.pos}`)) continue; // written before the restart
          made.push({ d: this.delivery(w, ev), at: ev.pos ?? 0 });
          madeBy.set(w.id, (madeBy.get(w.id) ?? 0) + 1);
          room--;
        }
      }
    }
    // Held in memory until first tried: the attempt's record is the first write (one write a delivery, not
    // two). A restart makes it again: the webhook's stored position stays before its event until then.
    for (const { d, at } of made) {
      this.store.holdDelivery(d);
      let waiting = this.unwritten.get(d.webhook_id);
      if (!waiting) this.unwritten.set(d.webhook_id, (waiting = new Map()));
      waiting.set(d.seq, at);
      this.fresh.add(d.seq);
      this.freshBy.set(d.webhook_id, (this.freshBy.get(d.webhook_id) ?? 0) + 1);
      this.track(d, true);
    }
    this.letQueueGo(webhooks, end);
  }

  /** Deliveries a webhook may be given now. */
  private roomOf(webhookId: string): number {
    return Math.min(
      FRESH_PER_WEBHOOK - (this.freshBy.get(webhookId) ?? 0),
      (this.opts.limits?.inPlayPerWebhook ?? IN_PLAY_PER_WEBHOOK) - this.store.inPlay(webhookId),
    );
  }

  /** A webhook's next event, from the queue or (fallen behind) from the database; null when it has none now. */
  private nextFor(webhookId: string, end: number): StoredEvent | null {
    const far = this.behind.get(webhookId);
    if (!far) {
      const passed = this.passed.get(webhookId) ?? 0;
      for (let at = this.cursorOf(webhookId); at < end; ) {
        const ev = this.fanQueue[at - this.fanBase]!;
        this.cursors.set(webhookId, ++at);
        // (one queued after it rejoined, read from the database already)
        if (ev.pos === undefined || ev.pos > passed) return ev;
      }
      return null;
    }
    if (far.next === far.events.length) {
      far.events = this.store.eventsAfter(far.pos, BEHIND_CHUNK);
      far.next = 0;
      if (far.events.length === 0) {
        // every event written is passed: its place is at the queue's end (what is queued is written)
        this.behind.delete(webhookId);
        this.cursors.set(webhookId, end);
        if (this.behind.size === 0) this.madeBefore.clear();
        return null;
      }
    }
    const ev = far.events[far.next++]!;
    far.pos = ev.pos!;
    return ev;
  }

  /** The queue's events every webhook in it has passed are let go; a webhook too far behind leaves it. */
  private letQueueGo(webhooks: WebhookRecord[], end: number): void {
    let low = end;
    for (const w of webhooks) {
      if (this.behind.has(w.id)) continue;
      const at = this.cursorOf(w.id);
      if (end - at > (this.opts.limits?.queueBehindMax ?? QUEUE_BEHIND_MAX)) {
        this.behind.set(w.id, { pos: this.passed.get(w.id) ?? 0, events: [], next: 0 });
        this.cursors.delete(w.id);
      } else low = Math.min(low, at);
    }
    if (low > this.fanBase) {
      this.fanQueue = low === end ? [] : this.fanQueue.slice(low - this.fanBase);
      this.fanBase = low;
    }
  }

  /** What it holds in memory: the events queued, the deliveries in play, the webhooks reading from the database. */
  held(): { queuedEvents: number; inPlay: number; webhooksBehind: number } {
    return {
      queuedEvents: this.fanQueue.length,
      inPlay: this.store.liveCount,
      webhooksBehind: this.behind.size,
    };
  }

  /** Where a webhook is in the queue: one registered before the sandbox started begins with what comes now. */
  private cursorOf(webhookId: string): number {
    let at = this.cursors.get(webhookId);
    if (at === undefined) this.cursors.set(webhookId, (at = this.fanBase));
    return at;
  }

  /** Some webhook has events to fan out and room for them. */
  private fanWaiting(): boolean {
    const end = this.fanBase + this.fanQueue.length;
    for (const w of this.store.webhooks.values())
      if (w.status === 'enabled' && (this.behind.has(w.id) || this.cursorOf(w.id) < end) && this.roomOf(w.id) > 0)
        return true;
    return false;
  }

  private delivery(w: WebhookRecord, ev: StoredEvent): DeliveryRecord {
    const now = isoNow(this.opts.clock);
    const seq = this.store.nextSeq();
    return {
      seq,
      id: deliveryId(seq, newId('dlv').slice(4)),
      webhook_id: w.id,
      event_id: eventIdOf(ev),
      event_type: ev.type,
      body: ev.json,
      ...(ev.pos !== undefined ? { event_pos: ev.pos } : {}),
      status: 'pending',
      attempts: 0,
      max_attempts: MAX_ATTEMPTS,
      last_status_code: null,
      next_attempt_at: now,
      created_at: now,
    };
  }

  /** The dispatcher's bookkeeping at the next turn of the event loop, once for everything that came meanwhile. */
  private soon(): void {
    if (this.turnQueued || this.stopped) return;
    this.turnQueued = true;
    setImmediate(() => {
      this.turnQueued = false;
      if (this.stopped) return;
      this.recordInTime();
      if (this.fanWaiting()) this.fanOut();
      // (with no room anywhere, a webhook stalled too long still leaves the queue)
      else this.letQueueGo(this.list(), this.fanBase + this.fanQueue.length);
      this.kick();
      if (this.fanWaiting()) this.soon();
    });
  }

  start(): void {
    this.resumeBacklog();
    this.kick();
  }

  /**
   * Takes up the events each webhook had not yet been given deliveries for when the sandbox last stopped
   * (or crashed), from its stored position: those deliveries were held in memory, or not yet made. An event
   * whose delivery was written meanwhile is not made again. A webhook with no position (a snapshot's, or one
   * from an orc before positions) begins with the events from now on.
   */
  private resumeBacklog(): void {
    const stored = this.store.fanoutPositions();
    const webhooks = this.list();
    const fresh = webhooks.filter((w) => !stored.has(w.id));
    if (fresh.length) {
      const pos = this.store.lastEventPos();
      this.store.transaction(() => fresh.forEach((w) => this.store.saveFanoutPosition(w.id, pos)));
      for (const w of fresh) stored.set(w.id, pos);
    }
    let low = Infinity;
    for (const w of webhooks) {
      const pos = stored.get(w.id)!;
      this.storedAt.set(w.id, pos);
      this.passed.set(w.id, pos);
      // each reads what it has not passed from the database, and joins the queue once it has read it all
      this.behind.set(w.id, { pos, events: [], next: 0 });
      low = Math.min(low, pos);
    }
    if (low === Infinity) return;
    for (const made of this.store.deliveredAfter(low))
      if (made.event_pos > (stored.get(made.webhook_id) ?? Number.POSITIVE_INFINITY))
        this.madeBefore.add(`${made.webhook_id} ${made.event_pos}`);
    this.soon();
  }

  /** Forgets every delivery it tracks (a reset emptied the store). */
  reset(): void {
    this.fanQueue = [];
    this.fanBase = 0;
    this.cursors.clear();
    this.storedAt.clear();
    this.passed.clear();
    this.unwritten.clear();
    this.madeBefore.clear();
    this.behind.clear();
    this.fresh.clear();
    this.freshBy.clear();
    this.finished = [];
    this.recordTimer?.();
    this.recordTimer = null;
    this.due.clear();
    this.ready.clear();
    this.byWebhook.clear();
    this.timer?.();
    this.timer = null;
  }

  stop(): void {
    // What finished is written before the sandbox closes (what is still in flight is tried again after a restart).
    this.record();
    this.stopped = true;
    this.timer?.();
    this.recordTimer?.();
    for (const a of this.aborts) a.abort();
    this.poster.destroy();
  }

  /** Sends what is due now, as far as the limits allow, and sets one timer for the next due delivery. Its
   * work is the deliveries due now, never every pending one: with 100 webhooks on every event, walking them
   * all at each kick (after every attempt) made /healthz take seconds. */
  private kick(): void {
    if (this.stopped) return;
    this.timer?.();
    this.timer = null;
    const now = this.opts.clock.now();
    for (let top = this.due.peek(); top && top[0] <= now; top = this.due.peek()) {
      this.due.pop();
      // (one no longer in play was finished meanwhile, or expired, or the webhook removed)
      const d = this.store.liveDelivery(top[1]);
      if (d && d.status === 'pending' && !this.inFlight.has(d.seq)) {
        let q = this.ready.get(d.webhook_id);
        if (!q) this.ready.set(d.webhook_id, (q = { ids: [], head: 0 }));
        q.ids.push(d.seq);
      }
    }
    // Each webhook's due deliveries in order, up to its limit; a delivery held back goes when one of that
    // webhook's finishes. Webhooks take turns (one served goes to the back), and one turn of the event loop
    // starts attempts for a slice of time at most: requests are answered between.
    const until = performance.now() + SLICE_MS;
    let more = false;
    for (const [webhookId, q] of [...this.ready]) {
      while (
        q.head < q.ids.length &&
        (this.inFlightByWebhook.get(webhookId) ?? 0) < PER_WEBHOOK_IN_FLIGHT &&
        this.inFlight.size < MAX_IN_FLIGHT
      ) {
        const seq = q.ids[q.head++]!;
        const d = this.store.liveDelivery(seq);
        if (!d || d.status !== 'pending' || this.inFlight.has(seq)) continue;
        void this.attempt(d).catch((err: Error) => this.opts.log(`sandbox: delivery ${d.id} failed: ${err.message}`));
        if (performance.now() > until) {
          more = true;
          break;
        }
      }
      this.ready.delete(webhookId);
      if (q.head < q.ids.length) {
        if (q.head > 1024 && q.head * 2 > q.ids.length) {
          // now and then, the taken front let go at once
          q.ids = q.ids.slice(q.head);
          q.head = 0;
        }
        this.ready.set(webhookId, q);
      }
      if (more || this.inFlight.size >= MAX_IN_FLIGHT) break;
    }
    if (more) this.soon();
    const next = this.due.peek();
    if (next) this.timer = this.opts.clock.timer(Math.max(0, next[0] - now), () => this.kick(), { background: true });
  }

  private async attempt(d: DeliveryRecord): Promise<void> {
    const { seq, id } = d;
    this.inFlight.add(seq);
    if (this.fresh.delete(seq)) {
      this.freshBy.set(d.webhook_id, (this.freshBy.get(d.webhook_id) ?? 1) - 1);
      if (this.fanQueue.length) this.soon();
    }
    this.inFlightByWebhook.set(d.webhook_id, (this.inFlightByWebhook.get(d.webhook_id) ?? 0) + 1);
    const w = this.store.webhooks.get(d.webhook_id);
    let status: number | null = null;
    let error: string | null = null;
    const started = this.wallClock.now();
    const fault = w ? (this.opts.faultFor?.(w.id) ?? null) : null;
    const abort = new AbortController();
    this.aborts.add(abort);
    const cancelTimeout = this.wallClock.timer(DELIVERY_TIMEOUT_MS, () => abort.abort());
    try {
      if (fault) {
        status = 500; // the sandbox answers for the receiver, as the fault asks
        error = `injected by fault ${fault.id}`;
      } else if (w && w.status === 'enabled') {
        status = await this.post(w, d, abort.signal);
      }
    } catch (err) {
      status = null; // connection refused, reset, or timed out: counts as a failed attempt
      const e = err as NodeJS.ErrnoException;
      error = abort.signal.aborted
        ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
        : e.code || e.message || 'failed';
    } finally {
      cancelTimeout();
      this.aborts.delete(abort);
    }
    if (w)
      this.opts.onAttempt?.({
        webhook_id: w.id,
        delivery_id: id,
        url: w.url,
        status,
        ms: this.wallClock.now() - started,
        error,
        fault: fault?.id ?? null,
      });
    this.inFlight.delete(seq);
    this.inFlightByWebhook.set(d.webhook_id, (this.inFlightByWebhook.get(d.webhook_id) ?? 1) - 1);
    if (this.stopped) return;
    if (this.finished.length === 0) this.finishedSince = this.wallClock.now();
    this.finished.push({ seq, status });
    this.soon();
  }

  /**
   * One signed POST of the delivery's body; its status. Written straight to a kept-alive socket
   * (deliver.ts): Node's http client cost as much a delivery as all the rest of the sandbox's work for it.
   */
  private post(w: WebhookRecord, d: DeliveryRecord, signal: AbortSignal): Promise<number> {
    const headers = {
      'content-type': 'application/json',
      'user-agent': this.opts.userAgent,
      [DELIVERY_ID_HEADER]: d.id,
      [SIGNATURE_HEADER]: signatureHeader(w.secret, d.body),
    };
    return this.poster.post(this.targetOf(w), headers, this.bytesOf(d.body), signal);
  }

  /** How a webhook's URL is reached, worked out once. */
  private targetOf(w: WebhookRecord): Target {
    let t = this.targets.get(w.id);
    if (t && t.url === w.url) return t;
    const url = new URL(w.url);
    const https = url.protocol === 'https:';
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    t = {
      url: w.url,
      https,
      host,
      port: Number(url.port) || (https ? 443 : 80),
      servername: isIP(host) ? undefined : host,
      path: `${url.pathname}${url.search}`,
      hostHeader: url.host,
    };
    this.targets.set(w.id, t);
    return t;
  }

  /** An event's body as bytes, made once for all the webhooks it goes to (the last few hundred kept). */
  private bytesOf(json: string): Buffer {
    let bytes = this.bodies.get(json);
    if (!bytes) {
      this.bodies.set(json, (bytes = Buffer.from(json)));
      if (this.bodies.size > 512) this.bodies.delete(this.bodies.keys().next().value!);
    }
    return bytes;
  }

  /** Records the finished attempts now if they are enough, old enough, or the last; else in RECORD_MS at most. */
  private recordInTime(): void {
    if (this.finished.length === 0) return;
    if (
      this.finished.length >= RECORD_BATCH ||
      this.inFlight.size === 0 ||
      this.wallClock.now() - this.finishedSince >= RECORD_MS
    )
      return this.record();
    this.recordTimer ??= this.wallClock.timer(
      RECORD_MS,
      () => {
        this.recordTimer = null;
        this.soon();
      },
      { background: true },
    );
  }

  /** The clock of the network's timers (real time even when the service's clock is steered). */
  private get wallClock(): Clock {
    return this.opts.wallClock ?? this.opts.clock;
  }

  /** Records the attempts finished and not yet recorded, in one transaction, and queues their retries. */
  private record(): void {
    if (this.finished.length === 0) return this.savePositions(new Set());
    const batch = this.finished;
    this.finished = [];
    const retries: Array<[number, number]> = [];
    const written = new Set(batch.map((f) => f.seq));
    try {
      this.store.transaction(() => {
        for (const { seq, status } of batch) {
          const current = this.store.liveDelivery(seq);
          if (!current || current.status !== 'pending') continue; // finished meanwhile (its webhook removed)
          const attempts = current.attempts + 1;
          const ok = status !== null && status >= 200 && status < 300;
          const exhausted = attempts >= current.max_attempts;
          // The one backoff curve with equal jitter: base·2^(n-1), the upper half of it randomised; n counts
          // this round.
          const round = attempts - (current.round_base ?? 0) - 1;
          const delay = backoff(round, { baseMs: this.opts.retryBaseMs, capMs: Number.POSITIVE_INFINITY, jitter: 0.5 });
          const nextAt = ok || exhausted ? null : isoNow(this.opts.clock, delay);
          this.store.saveDelivery({
            ...current,
            attempts,
            last_status_code: status,
            status: ok ? 'succeeded' : exhausted ? 'failed' : 'pending',
            next_attempt_at: nextAt,
          });
          if (nextAt) retries.push([Date.parse(nextAt), seq]);
        }
        this.savePositions(written);
      });
    } catch (err) {
      // Not written (the disk refused): those deliveries are tried again, as a failed attempt would be.
      this.opts.log(`sandbox: ${batch.length} delivery attempts could not be recorded: ${(err as Error).message}`);
      for (const { seq } of batch) this.due.push(this.opts.clock.now() + this.opts.retryBaseMs, seq);
      return;
    }
    for (const [at, seq] of retries) this.due.push(at, seq);
    for (const waiting of this.unwritten.values()) for (const seq of written) waiting.delete(seq);
    this.opts.onRecorded?.();
  }

  /** Stores each webhook's fan-out position where it moved: the last event it passed, or just before its
   * oldest delivery not yet written (`written`: those being written now). A restart resumes after it. */
  private savePositions(written: Set<number>): void {
    const moved: Array<[string, number]> = [];
    for (const [id, passed] of this.passed) {
      let pos = passed;
      for (const [seq, at] of this.unwritten.get(id) ?? []) {
        if (written.has(seq)) continue;
        pos = Math.min(pos, at - 1);
        break;
      }
      if (pos !== this.storedAt.get(id) && this.store.webhooks.get(id)?.status === 'enabled') moved.push([id, pos]);
    }
    if (moved.length === 0) return;
    this.store.transaction(() => moved.forEach(([id, pos]) => this.store.saveFanoutPosition(id, pos)));
    this.store.afterCommit(() => moved.forEach(([id, pos]) => this.storedAt.set(id, pos)));
  }
}

/** An event's id, from its JSON (the id is its first field: read without parsing the rest). */
function eventIdOf(ev: StoredEvent): string {
  const m = /^\{"id":"([^"]+)"/.exec(ev.json);
  return m ? m[1]! : (JSON.parse(ev.json) as { id: string }).id;
}

/** A min-heap of [due ms, delivery seq]: the next due delivery in O(1), a push or a pop in O(log n). */
class DueQueue {
  private readonly heap: Array<[number, number]> = [];

  peek(): [number, number] | undefined {
    return this.heap[0];
  }

  push(at: number, seq: number): void {
    const h = this.heap;
    h.push([at, seq]);
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (h[parent]![0] <= h[i]![0]) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  pop(): [number, number] | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]![0] < h[m]![0]) m = l;
        if (r < h.length && h[r]![0] < h[m]![0]) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }

  clear(): void {
    this.heap.length = 0;
  }
}
