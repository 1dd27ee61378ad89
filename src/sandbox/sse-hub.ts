// The event streams of runs: history replayed from the start or after Last-Event-ID, then every committed
// event as it happens. Events committed together (one pipeline tick) reach each watcher in one write,
// encoded once; a watcher that stops reading is dropped rather than buffered without end.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { every, type Clock } from '../clock.js';
import type { SandboxService } from './service.js';
import { isTerminal } from './service.js';
import type { RunRecord, StoredEvent } from './store.js';

const MAX_BUFFER = 4 * 1024 * 1024;
const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

interface Watcher {
  res: ServerResponse;
  lastSeq: number;
  /** Events this stream may still carry before it is cut (an injected fault); unlimited when absent. */
  left?: number;
}

export class SseHub {
  private readonly watchers = new Map<string, Set<Watcher>>();
  private readonly outbox = new Map<string, { events: StoredEvent[]; terminal: boolean }>();
  /** Streams of every run's events (`GET /_sandbox/events`), and what this tick committed for them. */
  private readonly firehose = new Set<{ res: ServerResponse; logs: boolean }>();
  private firehoseOut: StoredEvent[] = [];
  private readonly stopKeepAlive: () => void;

  constructor(
    private readonly service: SandboxService,
    keepAliveMs: number,
    clock: Clock,
  ) {
    service.onEvent((runId, ev, terminal) => {
      if (this.firehose.size > 0) {
        if (this.firehoseOut.length === 0) queueMicrotask(() => this.flushFirehose());
        this.firehoseOut.push(ev);
      }
      if (!this.watchers.has(runId)) return;
      let box = this.outbox.get(runId);
      if (!box) {
        this.outbox.set(runId, (box = { events: [], terminal: false }));
        if (this.outbox.size === 1) queueMicrotask(() => this.flush());
      }
      box.events.push(ev);
      box.terminal ||= terminal;
    });
    this.stopKeepAlive = every(
      clock,
      keepAliveMs,
      () => {
        for (const set of this.watchers.values()) for (const w of set) write(w.res, KEEP_ALIVE);
        for (const f of this.firehose) write(f.res, KEEP_ALIVE);
      },
      { background: true },
    );
  }

  /** Event streams open now. */
  get size(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** `cutAfter`: the stream is cut (the connection dropped) after that many events, as a fault asks. */
  open(req: IncomingMessage, res: ServerResponse, rec: RunRecord, lastEventId: string | null, cutAfter?: number): void {
    const runId = rec.run.id;
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const last = Number.parseInt(lastEventId ?? '0', 10);
    let chunk = 'retry: 2000\n\n';
    let lastSeq = Number.isFinite(last) ? last : 0;
    let left = cutAfter;
    for (const ev of this.service.eventsOf(runId)) {
      if (ev.seq <= lastSeq) continue;
      if (left !== undefined && left-- <= 0) {
        res.write(chunk);
        return void res.destroy();
      }
      chunk += frame(ev);
      lastSeq = ev.seq;
    }
    res.write(chunk);
    if (isTerminal(rec)) return void res.end();
    let set = this.watchers.get(runId);
    if (!set) this.watchers.set(runId, (set = new Set()));
    const watcher: Watcher = { res, lastSeq, ...(left !== undefined ? { left } : {}) };
    set.add(watcher);
    res.on('close', () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(runId) === set) this.watchers.delete(runId);
    });
  }

  /** Every run's events from now on, in one stream (no replay, no ids): `event:` the type, `data:` the
   * envelope; build and QA log lines only with `logs`. A reset is said as `event: sandbox.reset`. */
  openFirehose(req: IncomingMessage, res: ServerResponse, logs: boolean): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    req.socket.setNoDelay(true);
    res.write('retry: 2000\n\n');
    const f = { res, logs };
    this.firehose.add(f);
    res.on('close', () => this.firehose.delete(f));
  }

  private flushFirehose(): void {
    const events = this.firehoseOut;
    this.firehoseOut = [];
    // Encoded once for all streams that want logs and once for those that do not; a tick of log lines
    // alone writes nothing to the latter.
    let all: Buffer | null = null;
    let noLogs: Buffer | null = null;
    for (const f of this.firehose) {
      const chunk = f.logs ? (all ??= Buffer.from(events.map(fireFrame).join(''))) : (noLogs ??= Buffer.from(events.filter((e) => e.type !== 'log').map(fireFrame).join('')));
      if (chunk.length) write(f.res, chunk);
    }
  }

  /** Ends every stream (a reset: the runs they follow are gone); the firehose goes on, told of the reset. */
  closeAll(): void {
    for (const f of this.firehose) write(f.res, Buffer.from('event: sandbox.reset\ndata: {}\n\n'));
    for (const set of this.watchers.values()) for (const w of set) w.res.end();
    this.watchers.clear();
  }

  close(): void {
    this.stopKeepAlive();
    for (const f of this.firehose) f.res.end();
    this.firehose.clear();
    for (const set of this.watchers.values()) for (const w of set) w.res.end();
    this.watchers.clear();
  }

  private flush(): void {
    for (const [runId, { events, terminal }] of this.outbox) {
      const set = this.watchers.get(runId);
      if (!set) continue;
      const all = Buffer.from(events.map(frame).join(''));
      const last = events.at(-1)!.seq;
      for (const w of set) {
        // A watcher that joined meanwhile already has part of this in its replay: never send an event twice.
        if (w.left !== undefined) {
          // A stream a fault cuts: what it may still carry, then the connection dropped.
          const mine = events.filter((e) => e.seq > w.lastSeq);
          const sent = mine.slice(0, w.left);
          w.left -= sent.length;
          if (sent.length) w.res.write(sent.map(frame).join(''));
          if (sent.length < mine.length || w.left <= 0) {
            w.res.destroy();
            continue;
          }
          w.lastSeq = Math.max(w.lastSeq, last);
          if (terminal) w.res.end();
          continue;
        }
        const chunk = w.lastSeq < events[0]!.seq ? all : Buffer.from(events.filter((e) => e.seq > w.lastSeq).map(frame).join(''));
        if (chunk.length) write(w.res, chunk);
        w.lastSeq = Math.max(w.lastSeq, last);
        if (terminal) w.res.end();
      }
      if (terminal) this.watchers.delete(runId);
    }
    this.outbox.clear();
  }
}

function frame(ev: StoredEvent): string {
  return `id: ${ev.seq}\nevent: ${ev.type}\ndata: ${ev.json}\n\n`;
}

function fireFrame(ev: StoredEvent): string {
  return `event: ${ev.type}\ndata: ${ev.json}\n\n`;
}

function write(res: ServerResponse, chunk: Buffer): void {
  if (res.writableLength > MAX_BUFFER) res.destroy();
  else res.write(chunk);
}
