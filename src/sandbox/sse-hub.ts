// The event streams of runs: history replayed from the start or after Last-Event-ID, then every committed
// event as it happens. Events committed together (one pipeline tick) reach each watcher in one write,
// encoded once. The writing itself (head, keep-alives, the bound on a slow reader) is sse-writer.ts's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../lib/clock.js';
import type { SandboxService } from './service.js';
import { isTerminal } from './service.js';
import { SseWriter, STREAM_BACKLOG_BYTES, type SseStream } from './sse-writer.js';
import type { RunRecord, StoredEvent } from './store.js';

interface Watcher {
  stream: SseStream;
  lastSeq: number;
  /** Events this stream may still carry before it is cut (an injected fault); unlimited when absent. */
  left?: number;
}

export class SseHub {
  /** Every event stream the sandbox writes goes through this one writer (the journal's too: admin.ts). */
  readonly writer: SseWriter;
  private readonly watchers = new Map<string, Set<Watcher>>();
  private readonly outbox = new Map<string, { events: StoredEvent[]; terminal: boolean }>();
  /** Streams of every run's events (`GET /_sandbox/events`), and what this tick committed for them. */
  private readonly firehose = new Set<{ stream: SseStream; logs: boolean }>();
  private firehoseOut: StoredEvent[] = [];

  constructor(
    private readonly service: SandboxService,
    keepAliveMs: number,
    clock: Clock,
    maxBacklog = STREAM_BACKLOG_BYTES,
  ) {
    this.writer = new SseWriter(keepAliveMs, clock, maxBacklog);
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
  }

  /** Event streams open now. */
  get size(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** `cutAfter`: the stream is cut (the connection dropped) after that many events, as a fault asks. A client
   * that already has an ended run's terminal event (its Last-Event-ID) is answered 204, which stops a
   * standard EventSource: a 200 closed at once would have it reconnect forever. */
  open(req: IncomingMessage, res: ServerResponse, rec: RunRecord, lastEventId: string | null, cutAfter?: number): void {
    const runId = rec.run.id;
    const last = Number.parseInt(lastEventId ?? '0', 10);
    let lastSeq = Number.isFinite(last) ? last : 0;
    const events = this.service.eventsOf(runId);
    const over = lastEventId !== null && isTerminal(rec) && (events.at(-1)?.seq ?? 0) <= lastSeq;
    if (over) return void res.writeHead(204).end();
    const stream = this.writer.open(req, res);
    let chunk = '';
    let left = cutAfter;
    for (const ev of events) {
      if (ev.seq <= lastSeq) continue;
      if (left !== undefined && left-- <= 0) return stream.cut(chunk);
      chunk += frame(ev);
      lastSeq = ev.seq;
    }
    if (isTerminal(rec)) return stream.end(chunk);
    if (left === 0) return stream.cut(chunk);
    stream.write(chunk);
    let set = this.watchers.get(runId);
    if (!set) this.watchers.set(runId, (set = new Set()));
    const watcher: Watcher = { stream, lastSeq, ...(left !== undefined ? { left } : {}) };
    set.add(watcher);
    res.on('close', () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(runId) === set) this.watchers.delete(runId);
    });
  }

  /** Every run's events from now on, in one stream (no replay, no ids): `event:` the type, `data:` the
   * envelope; build and QA log lines only with `logs`. A reset is said as `event: sandbox.reset`. */
  openFirehose(req: IncomingMessage, res: ServerResponse, logs: boolean): void {
    const f = { stream: this.writer.open(req, res), logs };
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
      const chunk = f.logs
        ? (all ??= Buffer.from(events.map(fireFrame).join('')))
        : (noLogs ??= Buffer.from(
            events
              .filter((e) => e.type !== 'log')
              .map(fireFrame)
              .join(''),
          ));
      if (chunk.length) f.stream.write(chunk);
    }
  }

  /** Ends every stream of a run (a reset: the runs they follow are gone); the firehose goes on, told of it. */
  closeAll(): void {
    for (const f of this.firehose) f.stream.write('event: sandbox.reset\ndata: {}\n\n');
    for (const set of this.watchers.values()) for (const w of set) w.stream.end();
    this.watchers.clear();
  }

  /** Ends every stream, the journal's too, and stops the keep-alives. */
  close(): void {
    this.writer.close();
    this.firehose.clear();
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
        const mine = w.lastSeq < events[0]!.seq ? events : events.filter((e) => e.seq > w.lastSeq);
        w.lastSeq = Math.max(w.lastSeq, last);
        if (w.left !== undefined && w.left <= mine.length) {
          // A stream a fault cuts: what it may still carry, then the connection dropped.
          w.stream.cut(mine.slice(0, w.left).map(frame).join(''));
          continue;
        }
        if (w.left !== undefined) w.left -= mine.length;
        const chunk = mine === events ? all : mine.map(frame).join('');
        if (terminal) w.stream.end(chunk);
        else w.stream.write(chunk);
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
