// The sandbox's state: served from memory, written through to SQLite (node:sqlite) in one transaction
// per change, before the change is acknowledged (idempotency records, read only by key, stay on disk).
// Memory takes a change only after its transaction has committed: a write that fails leaves no trace
// anywhere. ':memory:' gives the same store without a file.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { AppSpecInput, Gate, GateHistoryEntry, Run, Scorecard } from '../contract/schemas.js';
import type { GateName } from '../contract/events.js';
import type { Magic } from './generate.js';
import { SCREENSHOTS_DRAWN, type ScreenshotInputs } from './phone-screen.js';

export interface RunRecord {
  seq: number;
  run: Run;
  spec: AppSpecInput;
  gates: Record<GateName, GateRecord>;
  text: string;
  magic: Magic;
  stageIndex: number;
  tick: number;
  /** Highest stage index completed at least once: decides which artifacts are ready. */
  furthest: number;
  scorecard: Scorecard | null;
  appStoreUrl: string | null;
  lastEventSeq: number;
  /** When each artifact kind last changed (ISO). */
  artifactTimes: Record<string, string>;
  /** What binary artifacts were built from, frozen when their stage completed, so a file never changes under its sha256. */
  artifactInputs: {
    /** (Records from before screenshots showed the screens' text hold `{ palette, screens: ids }`.) */
    screenshots?: ScreenshotInputs | { palette: string[]; screens: string[] };
    ipa?: { name: string; bundle_id?: string };
  };
  /** Binary artifacts described once their stage completed (sizes, digests): listing reads only this. */
  artifactMeta?: { screenshots?: ArtifactMeta; ipa?: ArtifactMeta };
}

/** A gate as the sandbox keeps it: every decision it had, oldest first (reopening and cancel keep them). */
export type GateRecord = Gate & { history: GateHistoryEntry[] };

/**
 * A record as this sandbox keeps it, from one an earlier orc wrote (a database row, a snapshot): its gates get
 * the `history` they lacked, which holds the one decision such a gate still shows (earlier ones were lost).
 */
export function upgradeRecord(rec: RunRecord): RunRecord {
  for (const gate of Object.values(rec.gates ?? {}) as Array<Gate & { history?: GateHistoryEntry[] }>) {
    if (Array.isArray(gate.history)) continue;
    const decided = (gate.state === 'approved' || gate.state === 'rejected') && gate.decided_at;
    gate.history = decided ? [{ decision: gate.state, notes: gate.notes, decided_at: gate.decided_at! }] : [];
  }
  return rec;
}

/** A binary artifact described once: its files, and for the ipa what its bytes are made from. */
export interface ArtifactMeta {
  /** The artifactTimes entry it describes: a later build makes it stale. */
  at: string;
  files: Array<{ name: string; content_type: string; size: number; sha256: string }>;
  mib?: number;
  crcs?: number[];
  /** For screenshots: which drawing made the files (SCREENSHOTS_DRAWN in artifacts.ts); another is stale. */
  drawn?: number;
}

export interface StoredEvent {
  seq: number;
  type: string;
  /** The event envelope as one line of JSON: what SSE sends and webhooks post. */
  json: string;
  /** Its place among every run's events (the table's rowid), set once written: the webhooks' fan-out
   * position counts in it. */
  pos?: number;
}

export interface WebhookRecord {
  seq: number;
  id: string;
  url: string;
  events: string[];
  secret: string;
  status: 'enabled' | 'deleted';
  created_at: string;
}

export interface DeliveryRecord {
  seq: number;
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  /** Attempts allowed before `failed`; a redelivery raises it by another full round. */
  max_attempts: number;
  /** Attempts made before the current round (a redelivery starts one): its backoff starts afresh. */
  round_base?: number;
  last_status_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface IdempotencyRecord {
  fingerprint: string;
  status: number;
  body: string;
  createdAtMs: number;
}

/** A snapshot's moment (Store.snapshotAt). */
export interface SnapshotAt {
  runs: RunRecord[];
  webhooks: WebhookRecord[];
  deliveries: DeliveryRecord[];
  eventsOf(rec: RunRecord): StoredEvent[];
  cleared(): boolean;
}

type Sqlite = typeof import('node:sqlite');

/** A file of the sandbox's own, made (or made again) readable by its owner only, before SQLite opens it or
 * anything is written to it: SQLite gives a database's -journal, -wal and -shm files the database's mode. */
export function privateFile(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}

const SCHEMA_VERSION = 2;
/** How many runs' event lists stay in memory (the runs still moving are read again and again; the rest rarely). */
const EVENT_CACHE_RUNS = 500;
/** How many runs' whole records stay in memory (RunTable). */
const WHOLE_RUNS = 1000;
/** Event ids remembered as written to delivery_events: a few seconds of 100 runs moving. */
const EVENTS_REMEMBERED = 4096;
const NOTHING = () => {};

export class Store {
  /** Every run's list fields in memory; whole records read from the database when asked (RunTable). */
  readonly runs: RunTable;
  /** Runs whose binary artifacts were not yet described when the sandbox stopped (found at start). */
  readonly undescribedAtStart: string[] = [];
  /** Run ids in creation order (oldest first). */
  readonly runOrder: string[] = [];
  /** The events of the runs read lately (most of them the runs still moving), each list whole and in order;
   * every other run's are read from the database when asked for. A sandbox of 100,000 runs holds millions
   * of events: they are not all kept in memory. */
  private readonly eventCache = new Map<string, StoredEvent[]>();
  readonly webhooks = new Map<string, WebhookRecord>();
  readonly deliveries = new Map<string, DeliveryRecord>();
  /** The ids of events lately written to delivery_events (forgotten on a rollback: see transaction). */
  private readonly eventsWritten = new Set<string>();
  private seq = 0;
  /** Moves at every reset (clearAll): a snapshot being written out knows its moment is gone. */
  private generation = 0;
  private readonly db: DatabaseSync;
  private readonly stmts: Record<string, StatementSync>;
  private depth = 0;
  private afterCommitQueue: Array<() => void> = [];
  /** What memory takes once the transaction commits; dropped on rollback. */
  private staged: Array<() => void> = [];
  /** Told after every committed transaction, once memory holds it. */
  private readonly commitListeners = new Set<() => void>();
  /** For tests: a write (by name: putRun, putEvent, …) for which this answers true fails (with the error it
   * answers, if one: a full disk's). */
  failWrite: ((op: string) => boolean | Error) | null = null;

  private constructor(
    sqlite: Sqlite,
    readonly path: string,
  ) {
    if (path !== ':memory:') {
      // It holds webhook secrets and the file-signing secret: the folder 0700 when made here, the files 0600
      // (SQLite gives its -wal and -shm files the database file's mode).
      const dir = dirname(path);
      if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
      privateFile(path);
    }
    this.db = new sqlite.DatabaseSync(path);
    // WAL + NORMAL: a committed transaction survives a crash of this process (not a power cut: the sandbox is a test server).
    // A busy database (another process holding it) blocks the event loop at most 100 ms, then the write fails and is retried.
    this.db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=100;');
    this.schema();
    // The periodic sweep of expired idempotency records deletes a range of this index, not a scan of the table.
    this.db.exec('CREATE INDEX IF NOT EXISTS idempotency_created_at ON idempotency (created_at)');
    // A run's events are read by run when asked for (eventsOf), not all at start.
    this.db.exec('CREATE INDEX IF NOT EXISTS events_run ON events (run_id)');
    // A run's whole record is read by id when asked for (RunTable), not all at start.
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_id ON runs (id)');
    // A delivery's body (the event as posted) is written once for all the deliveries of its event, in a table
    // of its own keyed by the event's id, and a delivery's record (small) rewritten at each attempt: with 100
    // webhooks on every event, rewriting the event each time was the dispatcher's largest cost, and writing
    // it once a delivery still cost 60% of the delivery's write (and 750 bytes of database a delivery).
    // Older databases keep the body in the delivery's `event` column, or inside the record; they read the same.
    const has = (column: string) =>
      this.db.prepare("SELECT 1 FROM pragma_table_info('deliveries') WHERE name = ?").get(column) !== undefined;
    if (!has('event')) this.db.exec('ALTER TABLE deliveries ADD COLUMN event TEXT');
    if (!has('event_id')) this.db.exec('ALTER TABLE deliveries ADD COLUMN event_id TEXT');
    this.db.exec('CREATE TABLE IF NOT EXISTS delivery_events (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
    // Each webhook's fan-out position: every event at or before `pos` has its delivery written (or is not
    // one the webhook takes), so a restart resumes the backlog after it (spec 6.2.3, at least once).
    this.db.exec('CREATE TABLE IF NOT EXISTS fanout (webhook_id TEXT PRIMARY KEY, pos INTEGER NOT NULL)');
    const p = (sql: string) => this.db.prepare(sql);
    this.stmts = {
      putRun: p('INSERT OR REPLACE INTO runs (seq, id, body) VALUES (?, ?, ?)'),
      putEvent: p('INSERT INTO events (run_id, seq, type, body) VALUES (?, ?, ?, ?)'),
      putWebhook: p('INSERT OR REPLACE INTO webhooks (seq, id, body) VALUES (?, ?, ?)'),
      putDelivery: p(
        'INSERT INTO deliveries (seq, id, body, event_id) VALUES (?, ?, ?, ?) ON CONFLICT(seq) DO UPDATE SET body = excluded.body',
      ),
      putDeliveryEvent: p('INSERT OR IGNORE INTO delivery_events (id, body) VALUES (?, ?)'),
      putIdem: p(
        'INSERT INTO idempotency (scope, created_at, body) VALUES (?, ?, ?) ON CONFLICT(scope) DO UPDATE SET body = excluded.body, created_at = excluded.created_at',
      ),
      delIdem: p('DELETE FROM idempotency WHERE scope = ?'),
      sweepIdem: p('DELETE FROM idempotency WHERE created_at < ?'),
      getIdem: p('SELECT created_at, body FROM idempotency WHERE scope = ?'),
      begin: p('BEGIN IMMEDIATE'),
      commit: p('COMMIT'),
      rollback: p('ROLLBACK'),
      getEvents: p('SELECT seq, type, body FROM events WHERE run_id = ? ORDER BY rowid'),
      getRun: p('SELECT body FROM runs WHERE id = ?'),
      getMeta: p('SELECT value FROM meta WHERE key = ?'),
      putMeta: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      putFanout: p(
        'INSERT INTO fanout (webhook_id, pos) VALUES (?, ?) ON CONFLICT(webhook_id) DO UPDATE SET pos = excluded.pos',
      ),
      getFanout: p('SELECT webhook_id, pos FROM fanout'),
      lastEventPos: p('SELECT coalesce(max(rowid), 0) AS pos FROM events'),
      eventsAfter: p("SELECT rowid, seq, type, body FROM events WHERE rowid > ? AND type != 'log' ORDER BY rowid"),
    };
    this.runs = new RunTable(
      (id) => this.readRun(id),
      () => this.depth === 0,
    );
    this.load();
  }

  /** A run's whole record from the database (a record that no longer parses is the corruption it is). */
  private readRun(id: string): RunRecord | undefined {
    const row = this.stmts.getRun!.get(id);
    if (!row) return undefined;
    try {
      return upgradeRecord(JSON.parse(row.body as string) as RunRecord);
    } catch (err) {
      throw Object.assign(
        new Error(`the sandbox database ${this.path} has a corrupt record for run ${id} (${(err as Error).message})`),
        { code: 'ERR_SANDBOX_CORRUPT' },
      );
    }
  }

  /**
   * Version 2 keys every table but idempotency by an integer that only grows (the record's seq, or the
   * rowid for events), so a write appends to the end of its B-tree instead of splitting pages at a random
   * text key: the SQL of a run's creation costs a fraction of what it did (docs/figures.md). Ids stay unique
   * because the service makes them; events keep their order by rowid. A version-1 database is moved over
   * once, in one transaction (an orc from before cannot use it afterwards).
   */
  private schema(): void {
    const version = Number(this.db.prepare('PRAGMA user_version').get()!.user_version);
    if (version >= SCHEMA_VERSION) return;
    const old =
      version === 0 &&
      this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get() !== undefined;
    this.db.exec('BEGIN IMMEDIATE');
    try {
      if (old)
        for (const t of ['runs', 'events', 'webhooks', 'deliveries'])
          this.db.exec(`ALTER TABLE ${t} RENAME TO ${t}_v1`);
      this.db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE runs (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, body TEXT NOT NULL);
        CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL);
        CREATE TABLE webhooks (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, body TEXT NOT NULL);
        CREATE TABLE deliveries (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, body TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS idempotency (scope TEXT PRIMARY KEY, created_at INTEGER NOT NULL, body TEXT NOT NULL);`);
      if (old)
        this.db.exec(`INSERT INTO runs (seq, id, body) SELECT seq, id, body FROM runs_v1 ORDER BY seq;
          INSERT INTO events (run_id, seq, type, body) SELECT run_id, seq, type, body FROM events_v1 ORDER BY run_id, seq;
          INSERT INTO webhooks (seq, id, body) SELECT seq, id, body FROM webhooks_v1 ORDER BY seq;
          INSERT INTO deliveries (seq, id, body) SELECT seq, id, body FROM deliveries_v1 ORDER BY seq;
          DROP TABLE runs_v1; DROP TABLE events_v1; DROP TABLE webhooks_v1; DROP TABLE deliveries_v1;`);
      this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}; COMMIT`);
    } catch (err) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /** Opens (or creates) the store; `node:sqlite` is loaded here so nothing else pays for it. */
  static async open(path: string): Promise<Store> {
    let sqlite: Sqlite;
    try {
      sqlite = await import('node:sqlite');
    } catch {
      // node:sqlite needs no flag from Node 22.13 on; orc itself runs from 22.12.
      throw Object.assign(
        new Error(
          `the sandbox needs Node's built-in SQLite (node:sqlite, Node 22.13 or newer); this is Node ${process.versions.node}`,
        ),
        { code: 'ERR_SANDBOX_NO_SQLITE' },
      );
    }
    return new Store(sqlite, path);
  }

  /**
   * The list fields of every run (seq, id, the `run` as JSON, whether the record is whole, whether its binary
   * artifacts still want describing: src/sandbox/artifacts.ts, describedMeta and READY_AFTER), in a table
   * of their own that SQLite keeps with triggers on `runs`: a start reads them without reading one record
   * (a few KB each: what a start of 100,000 runs read, and took, is in docs/figures.md). A database
   * from before it gets it filled once. A record written corrupt (by hand) leaves its row without a run.
   */
  private listTable(): void {
    const had =
      this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_list'").get() !== undefined;
    const of = (row: string) => {
      const undescribed = (kind: string, after: number, also = '') =>
        `(json_extract(${row}.body, '$.furthest') >= ${after} AND (json_extract(${row}.body, '$.artifactMeta.${kind}.at') IS NULL OR json_extract(${row}.body, '$.artifactMeta.${kind}.at') IS NOT ifnull(json_extract(${row}.body, '$.artifactTimes.${kind}'), '')${also}))`;
      const redrawn = ` OR json_extract(${row}.body, '$.artifactMeta.screenshots.drawn') IS NOT ${SCREENSHOTS_DRAWN}`;
      return `${row}.seq, ${row}.id,
        CASE WHEN json_valid(${row}.body) THEN json_extract(${row}.body, '$.run') END,
        CASE WHEN json_valid(${row}.body) THEN json_type(${row}.body, '$.gates') IS NOT NULL AND json_type(${row}.body, '$.spec') IS NOT NULL END,
        CASE WHEN json_valid(${row}.body) THEN ${undescribed('screenshots', 3, redrawn)} OR ${undescribed('ipa', 4)} END`;
    };
    const columns = '(seq, id, run, whole, undescribed)';
    // Triggers from before today's drawing of screenshots do not see a stale one: made again, the table refilled.
    const current = this.db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'run_list_update'")
      .get();
    const refill =
      !had || (current !== undefined && !String(current.sql).includes(`drawn') IS NOT ${SCREENSHOTS_DRAWN}`));
    this.db.exec('BEGIN IMMEDIATE');
    try {
      if (refill) this.db.exec('DROP TRIGGER IF EXISTS run_list_insert; DROP TRIGGER IF EXISTS run_list_update;');
      this.db.exec(`
CREATE TABLE IF NOT EXISTS run_list (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, run TEXT, whole INTEGER, undescribed INTEGER);
      CREATE TRIGGER IF NOT EXISTS run_list_insert AFTER INSERT ON runs BEGIN INSERT OR REPLACE INTO run_list ${columns} SELECT ${of('NEW')}; END;
      CREATE TRIGGER IF NOT EXISTS run_list_update AFTER UPDATE ON runs BEGIN DELETE FROM run_list WHERE seq = OLD.seq; INSERT OR REPLACE INTO run_list ${columns} SELECT ${of('NEW')}; END;
      CREATE TRIGGER IF NOT EXISTS run_list_delete AFTER DELETE ON runs BEGIN DELETE FROM run_list WHERE seq = OLD.seq; END;
      ${refill ? `INSERT OR REPLACE INTO run_list ${columns} SELECT ${of('runs')} FROM runs;` : ''}`);
      this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  private load(): void {
    this.listTable();
    const rows = this.db.prepare('SELECT id, seq, run, whole, undescribed FROM run_list ORDER BY seq').all();
    for (const row of rows) {
      let run: RunRecord['run'];
      try {
        if (row.run === null) throw new Error('not JSON');
        run = JSON.parse(row.run as string) as RunRecord['run'];
        if (!run?.id || !row.whole) throw new Error('fields are missing');
      } catch (err) {
        throw Object.assign(
          new Error(
            `the sandbox database ${this.path} has a corrupt record for run ${String(row.id)} (${(err as Error).message})`,
          ),
          { code: 'ERR_SANDBOX_CORRUPT' },
        );
      }
      const seq = Number(row.seq);
      this.runs.index(run.id, seq, run);
      this.runOrder.push(run.id);
      if (row.undescribed) this.undescribedAtStart.push(run.id);
      this.seq = Math.max(this.seq, seq);
    }
    for (const row of this.db.prepare('SELECT body FROM webhooks ORDER BY seq').all()) {
      const w = JSON.parse(row.body as string) as WebhookRecord;
      this.webhooks.set(w.id, w);
      this.seq = Math.max(this.seq, w.seq);
    }
    for (const row of this.db
      .prepare(
        'SELECT d.body, coalesce(d.event, e.body) AS event FROM deliveries d LEFT JOIN delivery_events e ON e.id = d.event_id ORDER BY d.seq',
      )
      .all()) {
      const d = JSON.parse(row.body as string) as DeliveryRecord;
      if (typeof row.event === 'string') d.body = row.event;
      this.deliveries.set(d.id, d);
      this.seq = Math.max(this.seq, d.seq);
    }
  }

  nextSeq(): number {
    return ++this.seq;
  }

  /** Empties runs, events, webhooks, deliveries and idempotency records, in one transaction (a reset). */
  clearAll(): void {
    this.transaction(() => {
      this.fault('clear');
      this.db.exec(
        'DELETE FROM runs; DELETE FROM events; DELETE FROM webhooks; DELETE FROM deliveries; DELETE FROM delivery_events; DELETE FROM idempotency; DELETE FROM fanout;',
      );
      this.eventsWritten.clear();
      this.staged.push(() => {
        this.generation++;
        this.runs.clear();
        this.runOrder.length = 0;
        this.eventCache.clear();
        this.webhooks.clear();
        this.deliveries.clear();
      });
    });
  }

  /**
   * What it holds, taken at one moment (memory holds only what committed): the records, and each run's
   * events read when asked, up to the last one its record had then (events are only ever appended), so a
   * snapshot is written out record by record while the sandbox goes on. `cleared` says a reset came since.
   */
  snapshotAt(): SnapshotAt {
    const generation = this.generation;
    return {
      runs: this.runOrder.map((id) => this.runs.get(id)!),
      webhooks: [...this.webhooks.values()],
      deliveries: [...this.deliveries.values()],
      eventsOf: (rec) => {
        const all = this.eventCache.get(rec.run.id) ?? this.readEvents(rec.run.id);
        return all.filter((e) => e.seq <= rec.lastEventSeq);
      },
      cleared: () => this.generation !== generation,
    };
  }

  /** What it holds, as plain data, at one moment. */
  snapshot(): {
    runs: RunRecord[];
    events: Record<string, StoredEvent[]>;
    webhooks: WebhookRecord[];
    deliveries: DeliveryRecord[];
  } {
    const at = this.snapshotAt();
    const events = Object.fromEntries(at.runs.map((r) => [r.run.id, at.eventsOf(r)]));
    return { runs: at.runs, events, webhooks: at.webhooks, deliveries: at.deliveries };
  }

  /** Takes a snapshot in, into an empty store, in one transaction. */
  importSnapshot(snap: ReturnType<Store['snapshot']>): void {
    if (this.runs.size || this.webhooks.size)
      throw Object.assign(
        new Error('a snapshot is imported only into an empty sandbox (memory, or a fresh data folder)'),
        { code: 'ERR_SANDBOX_NOT_EMPTY' },
      );
    this.transaction(() => {
      for (const rec of snap.runs) {
        this.saveRun(upgradeRecord(rec));
        for (const ev of snap.events[rec.run.id] ?? []) this.appendEvent(rec.run.id, ev);
      }
      for (const w of snap.webhooks) this.saveWebhook(w);
      for (const d of snap.deliveries) this.saveDelivery(d);
    });
    for (const r of [...snap.runs, ...snap.webhooks, ...snap.deliveries]) this.seq = Math.max(this.seq, r.seq);
  }

  /** Runs `fn` in one transaction; nested calls join the outer one. Memory takes the change after COMMIT. */
  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.depth++;
    let out: T;
    try {
      this.stmts.begin!.run();
      try {
        out = fn();
        this.fault('commit');
        this.stmts.commit!.run();
      } catch (err) {
        if (this.db.isTransaction) this.stmts.rollback!.run();
        throw err;
      }
    } catch (err) {
      this.staged = [];
      this.afterCommitQueue = [];
      // (an event written in the rolled-back transaction is no longer there: every one is offered again)
      this.eventsWritten.clear();
      throw err;
    } finally {
      this.depth--;
    }
    const staged = this.staged;
    this.staged = [];
    for (const f of staged) f();
    const queued = this.afterCommitQueue;
    this.afterCommitQueue = [];
    for (const f of queued) f();
    for (const f of this.commitListeners) f();
    return out;
  }

  /** Calls `fn` after every committed change (what a test waits on instead of asking again every few ms);
   * answers the function that stops it. */
  onCommit(fn: () => void): () => void {
    this.commitListeners.add(fn);
    return () => this.commitListeners.delete(fn);
  }

  /** A write in the current transaction (or in one of its own); `apply` changes memory once it commits. */
  private write(op: string, sql: () => void, apply: () => void): void {
    if (this.depth === 0) return this.transaction(() => this.write(op, sql, apply));
    this.fault(op);
    sql();
    this.staged.push(apply);
  }

  private fault(op: string): void {
    const failed = this.failWrite?.(op);
    if (failed instanceof Error) throw failed;
    if (failed) throw Object.assign(new Error(`injected failure of ${op}`), { code: 'ERR_SANDBOX_INJECTED' });
  }

  /** Runs `fn` once the current transaction has committed (at once outside one); dropped on rollback. */
  afterCommit(fn: () => void): void {
    if (this.depth > 0) this.afterCommitQueue.push(fn);
    else fn();
  }

  /** Callers hand a record they own (a copy of what memory holds): memory swaps to it after the commit. */
  saveRun(rec: RunRecord): void {
    const body = JSON.stringify(rec);
    this.write(
      'putRun',
      () => this.stmts.putRun!.run(rec.seq, rec.run.id, body),
      () => {
        if (!this.runs.has(rec.run.id)) this.runOrder.push(rec.run.id);
        this.runs.set(rec.run.id, rec);
      },
    );
  }

  appendEvent(runId: string, ev: StoredEvent): void {
    // In memory only when its list is: otherwise the database has it, and the list is read whole when asked.
    this.write(
      'putEvent',
      () => (ev.pos = Number(this.stmts.putEvent!.run(runId, ev.seq, ev.type, ev.json).lastInsertRowid)),
      () => this.eventCache.get(runId)?.push(ev),
    );
  }

  /** The events after a place (see StoredEvent.pos), log lines left out, in the order they were written. */
  eventsAfter(pos: number): StoredEvent[] {
    return this.stmts.eventsAfter!.all(pos).map((row) => ({
      seq: Number(row.seq),
      type: row.type as string,
      json: row.body as string,
      pos: Number(row.rowid),
    }));
  }

  /** The place of the last event written (0 when there is none). */
  lastEventPos(): number {
    return Number(this.stmts.lastEventPos!.get()!.pos);
  }

  /** Each webhook's stored fan-out position. */
  fanoutPositions(): Map<string, number> {
    return new Map(this.stmts.getFanout!.all().map((row) => [row.webhook_id as string, Number(row.pos)]));
  }

  saveFanoutPosition(webhookId: string, pos: number): void {
    this.write('putFanout', () => this.stmts.putFanout!.run(webhookId, pos), NOTHING);
  }

  /** A run's events so far, in order: from memory when read lately, else from the database (and kept). */
  eventsOf(runId: string): readonly StoredEvent[] {
    const cached = this.eventCache.get(runId);
    if (cached) {
      // the most recently used last: the first in the map is the one to let go
      this.eventCache.delete(runId);
      this.eventCache.set(runId, cached);
      return cached;
    }
    if (!this.runs.has(runId)) return [];
    const list = this.readEvents(runId);
    // Inside a transaction the database shows this transaction's own writes too; memory holds only what
    // committed, so a list read then is not kept.
    if (this.depth === 0) this.cacheEvents(runId, list);
    return list;
  }

  private readEvents(runId: string): StoredEvent[] {
    return this.stmts
      .getEvents!.all(runId)
      .map((row) => ({ seq: Number(row.seq), type: row.type as string, json: row.body as string }));
  }

  private cacheEvents(runId: string, list: StoredEvent[]): void {
    this.eventCache.set(runId, list);
    if (this.eventCache.size > EVENT_CACHE_RUNS) this.eventCache.delete(this.eventCache.keys().next().value!);
  }

  saveWebhook(w: WebhookRecord): void {
    const body = JSON.stringify(w);
    this.write(
      'putWebhook',
      () => this.stmts.putWebhook!.run(w.seq, w.id, body),
      () => this.webhooks.set(w.id, w),
    );
  }

  /** A delivery made and not yet tried: in memory only, written with its first attempt (saveDelivery). */
  holdDelivery(d: DeliveryRecord): void {
    this.deliveries.set(d.id, d);
  }

  saveDelivery(d: DeliveryRecord): void {
    const { body: event, ...record } = d;
    const body = JSON.stringify(record);
    this.write(
      'putDelivery',
      () => {
        // The event once (its deliveries come together: the ids of the last few thousand are remembered, and
        // one forgotten is only offered again, never written twice).
        if (!this.eventsWritten.has(d.event_id)) {
          this.stmts.putDeliveryEvent!.run(d.event_id, event);
          this.eventsWritten.add(d.event_id);
          if (this.eventsWritten.size > EVENTS_REMEMBERED)
            this.eventsWritten.delete(this.eventsWritten.values().next().value!);
        }
        this.stmts.putDelivery!.run(d.seq, d.id, body, d.event_id);
      },
      () => this.deliveries.set(d.id, d),
    );
  }

  /** Idempotency records live only in the database, read by key when a POST carries one: a day of them
   * would otherwise sit in the heap, and every young-generation collection would copy them once more. */
  getIdempotency(scope: string): IdempotencyRecord | undefined {
    const row = this.stmts.getIdem!.get(scope);
    if (!row) return undefined;
    return {
      ...(JSON.parse(row.body as string) as Omit<IdempotencyRecord, 'createdAtMs'>),
      createdAtMs: Number(row.created_at),
    };
  }

  saveIdempotency(scope: string, rec: IdempotencyRecord): void {
    const body = JSON.stringify({ fingerprint: rec.fingerprint, status: rec.status, body: rec.body });
    this.write('putIdem', () => this.stmts.putIdem!.run(scope, rec.createdAtMs, body), NOTHING);
  }

  /** Forgets every idempotency record older than `beforeMs` (a range of the created_at index). */
  sweepIdempotency(beforeMs: number): void {
    this.write('sweepIdem', () => this.stmts.sweepIdem!.run(beforeMs), NOTHING);
  }

  deleteIdempotency(scope: string): void {
    this.write('delIdem', () => this.stmts.delIdem!.run(scope), NOTHING);
  }

  /** A value kept across restarts (the signing secret of file URLs). */
  meta(key: string, init: () => string): string {
    const row = this.stmts.getMeta!.get(key);
    if (row) return row.value as string;
    const value = init();
    this.stmts.putMeta!.run(key, value);
    return value;
  }

  /** The latest time the sandbox's clock is known to have shown (ms): the one saved at a stop, or the newest
   * event's when the sandbox crashed; 0 for a fresh store. A restart starts its clock no earlier. */
  latestTime(): number {
    const saved = Number(this.stmts.getMeta!.get('latest_time')?.value ?? 0) || 0;
    const newest = this.db
      .prepare("SELECT json_extract(body, '$.created_at') AS at FROM events ORDER BY rowid DESC LIMIT 1")
      .get();
    return Math.max(saved, (newest && Date.parse(String(newest.at))) || 0);
  }

  saveLatestTime(ms: number): void {
    this.write('putMeta', () => this.stmts.putMeta!.run('latest_time', String(ms)), NOTHING);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

/**
 * The runs: each run's list fields (its seq and its `run`, what a page shows) for every run, in memory; whole
 * records for the runs read lately, the rest read from the database by id when asked. A sandbox of 100,000
 * finished runs keeps megabytes, not the gigabyte their records take; the runs still moving are read at
 * every tick and so stay.
 */
export class RunTable {
  private readonly views = new Map<string, { seq: number; run: RunRecord['run'] }>();
  private readonly whole = new Map<string, RunRecord>();

  constructor(
    private readonly read: (id: string) => RunRecord | undefined,
    /** False inside a transaction: the database then shows its own uncommitted writes, which memory never holds. */
    private readonly mayKeep: () => boolean,
  ) {}

  get size(): number {
    return this.views.size;
  }

  has(id: string): boolean {
    return this.views.has(id);
  }

  /** The whole record (the committed one), or undefined when there is no such run. */
  get(id: string): RunRecord | undefined {
    const cached = this.whole.get(id);
    if (cached) {
      this.whole.delete(id);
      this.whole.set(id, cached);
      return cached;
    }
    if (!this.views.has(id)) return undefined;
    const rec = this.read(id);
    if (rec && this.mayKeep()) this.keep(id, rec);
    return rec;
  }

  /** What a list shows of a run: its seq and its `run`. */
  view(id: string): { seq: number; run: RunRecord['run'] } | undefined {
    return this.views.get(id);
  }

  set(id: string, rec: RunRecord): void {
    this.views.set(id, { seq: rec.seq, run: rec.run });
    this.keep(id, rec);
  }

  /** A run known by its list fields only (read at start). */
  index(id: string, seq: number, run: RunRecord['run']): void {
    this.views.set(id, { seq, run });
  }

  /** The ids of the runs whose status is one of these. */
  idsWhere(statuses: readonly string[]): string[] {
    const out: string[] = [];
    for (const [id, v] of this.views) if (statuses.includes(v.run.status)) out.push(id);
    return out;
  }

  clear(): void {
    this.views.clear();
    this.whole.clear();
  }

  private keep(id: string, rec: RunRecord): void {
    this.whole.set(id, rec);
    if (this.whole.size > WHOLE_RUNS) this.whole.delete(this.whole.keys().next().value!);
  }
}
