// The sandbox's state: served from memory, written through to SQLite (node:sqlite) in one transaction
// per change, before the change is acknowledged. Memory holds what is in play (the runs moving, the
// deliveries pending) and what every list needs (runs' list fields); the rest (finished deliveries, old
// events, idempotency records) is read from the database when asked, so memory stays flat however long the
// sandbox runs. Memory takes a change only after its transaction has committed: a write that fails leaves
// no trace anywhere. ':memory:' gives the same store without a file.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { AppSpecInput, Gate, GateHistoryEntry, Run, Scorecard } from '../contract/schemas.js';
import { TERMINAL_STATUSES, type GateName } from '../contract/events.js';
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
  /** Made by deliveryId(seq): a delivery is found by its id through its seq, without an index on ids. */
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
  /** Its event's place among every run's events (StoredEvent.pos): the body is read from there, not kept
   * twice. Absent for a delivery taken from a snapshot, whose body is stored with it. */
  event_pos?: number;
}

/** A delivery's id: its seq (nine base-36 digits) and twenty random characters, so `delivery(id)` reads
 * it by the table's key. Clients never parse it (CONTRACT.md, ids). */
export function deliveryId(seq: number, random: string): string {
  return `dlv_${seq.toString(36).padStart(9, '0')}${random}`;
}

/** The seq a delivery id was made from, or null for an id made otherwise (an earlier orc's, a snapshot's). */
export function seqOfDeliveryId(id: string): number | null {
  const m = /^dlv_([0-9a-z]{9})[A-Za-z0-9_-]{20}$/.exec(id);
  return m ? Number.parseInt(m[1]!, 36) : null;
}

/** Where a delivery is kept: its seq and its webhook (what the dispatcher's lists are made from at start). */
export interface DeliveryPlace {
  seq: number;
  webhook_id: string;
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
  /** The deliveries kept at that moment (those expired since are left out), read from the database a few at
   * a time: a sandbox keeps up to a quarter of a million. */
  deliveries: { count: number; each(): Generator<DeliveryRecord> };
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
/** Deliveries read at a time for a snapshot. */
const DELIVERY_CHUNK = 512;
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
  /** The deliveries in play, by seq: made and not yet tried, or pending a retry. Every other delivery is read
   * from the database when asked (a finished one never changes again unless redelivered). */
  private readonly live = new Map<number, DeliveryRecord>();
  /** How many of `live` each webhook has. */
  private readonly liveBy = new Map<string, number>();
  /** Every delivery with a seq below this has expired (retention: pruneDeliveries)… */
  private expiredBelowSeq = 0;
  /** …or, below this, was emptied by a reset. */
  private resetBelowSeq = 0;
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
    this.deliveryColumns();
    // Each webhook's fan-out position: every event at or before `pos` has its delivery written (or is not
    // one the webhook takes), so a restart resumes the backlog after it (spec 6.2.3, at least once).
    this.db.exec('CREATE TABLE IF NOT EXISTS fanout (webhook_id TEXT PRIMARY KEY, pos INTEGER NOT NULL)');
    this.stmts = this.statements();
    this.runs = new RunTable(
      (id) => this.readRun(id),
      () => this.depth === 0,
    );
    this.load();
  }

  /**
   * A delivery's row: its record (small, rewritten at each attempt), its webhook and status as columns (what
   * the dispatcher's lists are made from at start, and what retention keeps), and the place of its event,
   * whose row holds the body posted: with 100 webhooks on every event, the body written with each delivery was
   * the dispatcher's largest cost. Found by seq (its id says it: deliveryId), so no index on ids costs the
   * writes; an id made otherwise (an earlier orc's, a snapshot's) is `alias`, in a partial index of its own.
   * Older rows are given their columns once.
   */
  private deliveryColumns(): void {
    const has = (column: string) =>
      this.db.prepare("SELECT 1 FROM pragma_table_info('deliveries') WHERE name = ?").get(column) !== undefined;
    for (const [column, type] of [
      ['event', 'TEXT'],
      ['event_id', 'TEXT'],
      ['webhook_id', 'TEXT'],
      ['status', 'TEXT'],
      ['event_pos', 'INTEGER'],
      ['alias', 'INTEGER'],
    ] as const)
      if (!has(column)) this.db.exec(`ALTER TABLE deliveries ADD COLUMN ${column} ${type}`);
    // (rows an older orc wrote, before these columns or since: their ids are made otherwise)
    this.db.exec(`UPDATE deliveries SET alias = 1, webhook_id = json_extract(body, '$.webhook_id'),
        status = json_extract(body, '$.status'), event_id = coalesce(event_id, json_extract(body, '$.event_id'))
        WHERE webhook_id IS NULL`);
    this.db.exec('CREATE INDEX IF NOT EXISTS deliveries_alias ON deliveries (id) WHERE alias = 1');
    this.db.exec('CREATE TABLE IF NOT EXISTS delivery_events (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
  }

  // oxlint-disable-next-line max-lines-per-function -- a data table: every statement the store runs, prepared once
  private statements(): Record<string, StatementSync> {
    const p = (sql: string) => this.db.prepare(sql);
    return {
      putRun: p('INSERT OR REPLACE INTO runs (seq, id, body) VALUES (?, ?, ?)'),
      putEvent: p('INSERT INTO events (run_id, seq, type, body) VALUES (?, ?, ?, ?)'),
      putWebhook: p('INSERT OR REPLACE INTO webhooks (seq, id, body) VALUES (?, ?, ?)'),
      putDelivery: p(
        `INSERT INTO deliveries (seq, id, body, event_id, webhook_id, status, event_pos, event, alias)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(seq) DO UPDATE SET body = excluded.body, status = excluded.status`,
      ),
      // The body from the event's row; an older orc's delivery has it in its own `event` column or in the
      // delivery_events table (the record inside `body` is an even older orc's, with the body in it).
      getDelivery: p(`SELECT d.body, coalesce(d.event, x.body, e.body) AS event FROM deliveries d
        LEFT JOIN events e ON e.rowid = d.event_pos
        LEFT JOIN delivery_events x ON d.event_pos IS NULL AND d.event IS NULL AND x.id = d.event_id
        WHERE d.seq = ?`),
      getDeliveryRecord: p('SELECT body FROM deliveries WHERE seq = ?'),
      getAliasedDelivery: p('SELECT seq FROM deliveries WHERE alias = 1 AND id = ?'),
      deliveriesFrom: p('SELECT seq FROM deliveries WHERE seq >= ? AND seq <= ? ORDER BY seq LIMIT ?'),
      firstDeliveryFrom: p(
        "SELECT seq, json_extract(body, '$.created_at') AS at FROM deliveries WHERE seq >= ? ORDER BY seq LIMIT 1",
      ),
      firstEventFrom: p(
        "SELECT rowid, json_extract(body, '$.created_at') AS at FROM events WHERE rowid >= ? ORDER BY rowid LIMIT 1",
      ),
      firstSettledDelivery: p(
        "SELECT json_extract(body, '$.created_at') AS at FROM deliveries WHERE status IS NOT 'pending' ORDER BY seq LIMIT 1",
      ),
      pruneDeliveries: p("DELETE FROM deliveries WHERE seq < ? AND status IS NOT 'pending'"),
      pruneEvents: p('DELETE FROM events WHERE rowid < ?'),
      ownBody: p('UPDATE deliveries SET event = ?, event_pos = NULL WHERE seq = ?'),
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
      eventsAfter: p(
        "SELECT rowid, seq, type, body FROM events WHERE rowid > ? AND type != 'log' ORDER BY rowid LIMIT ?",
      ),
    };
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
    let sqlite: Sqlite | undefined;
    try {
      // Not import(): in orc-cli/testing's CommonJS build, under jest (a vm without --experimental-vm-modules),
      // a dynamic import throws; the built-in module is had the same way from ESM and CommonJS.
      sqlite = process.getBuiltinModule('node:sqlite');
    } catch {}
    if (sqlite === undefined) {
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
    for (const row of this.db.prepare("SELECT seq FROM deliveries WHERE status = 'pending'").all()) {
      const d = this.readDelivery(Number(row.seq));
      // (an older orc's write updates the record, not the column: the record says what it is)
      if (d?.status === 'pending') this.keepLive(d);
      else if (d) this.db.prepare('UPDATE deliveries SET status = ? WHERE seq = ?').run(d.status, d.seq);
    }
    const last = this.db.prepare('SELECT max(seq) AS seq FROM deliveries').get();
    this.seq = Math.max(this.seq, Number(last?.seq ?? 0));
    this.expiredBelowSeq = Number(this.stmts.getMeta!.get('deliveries_expired_below')?.value ?? 0) || 0;
    this.resetBelowSeq = Number(this.stmts.getMeta!.get('deliveries_reset_below')?.value ?? 0) || 0;
    // (an id is never made twice, even when every delivery with a higher seq has expired)
    this.seq = Math.max(this.seq, this.expiredBelowSeq);
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
      // (the ids made before are not said to have expired: they were reset; nor are they pruned again)
      this.stmts.putMeta!.run('deliveries_expired_below', String(this.seq));
      this.stmts.putMeta!.run('deliveries_reset_below', String(this.seq));
      const floor = this.seq;
      this.staged.push(() => {
        this.generation++;
        this.runs.clear();
        this.runOrder.length = 0;
        this.eventCache.clear();
        this.webhooks.clear();
        this.live.clear();
        this.liveBy.clear();
        this.expiredBelowSeq = floor;
        this.resetBelowSeq = floor;
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
    const last = this.seq;
    const count = Number(this.db.prepare('SELECT count(*) AS n FROM deliveries WHERE seq <= ?').get(last)!.n);
    return {
      runs: this.runOrder.map((id) => this.runs.get(id)!),
      webhooks: [...this.webhooks.values()],
      deliveries: { count, each: () => this.deliveriesUpTo(last) },
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
    return { runs: at.runs, events, webhooks: at.webhooks, deliveries: [...at.deliveries.each()] };
  }

  /** The deliveries kept with a seq up to `last`, oldest first, as a snapshot shows them (the body with
   * each, no place of an event: a snapshot's events are numbered anew where it is taken in). Read a chunk
   * at a time, so a snapshot written out while the sandbox goes on holds a chunk, never all of them. */
  private *deliveriesUpTo(last: number): Generator<DeliveryRecord> {
    // (from the first kept: one still pending below the expired keeps its place)
    for (let from = 0; ; ) {
      const seqs = this.stmts.deliveriesFrom!.all(from, last, DELIVERY_CHUNK);
      for (const row of seqs) {
        const d = this.readDelivery(Number(row.seq));
        if (!d || d.body === undefined) continue; // expired meanwhile, or its event has
        const { event_pos: _, ...portable } = d;
        yield portable;
      }
      if (seqs.length < DELIVERY_CHUNK) return;
      from = Number(seqs.at(-1)!.seq) + 1;
    }
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
      // (a place among this sandbox's events the snapshot's cannot have: its body is kept with it)
      for (const { event_pos: _, ...d } of snap.deliveries) this.saveDelivery(d);
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
        // An ended run changes no more and is rarely read again: its events are let go with it (RunTable).
        if (TERMINAL_STATUSES.has(rec.run.status)) this.eventCache.delete(rec.run.id);
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

  /** The events after a place (see StoredEvent.pos), log lines left out, in the order they were written,
   * `limit` at most. */
  eventsAfter(pos: number, limit: number): StoredEvent[] {
    return this.stmts.eventsAfter!.all(pos, limit).map((row) => ({
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
    // committed, so a list read then is not kept; nor an ended run's (read once, as a rule).
    if (this.depth === 0 && !TERMINAL_STATUSES.has(this.runs.view(runId)!.run.status)) this.cacheEvents(runId, list);
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
    this.keepLive(d);
  }

  /** How many deliveries of a webhook are in play. */
  inPlay(webhookId: string): number {
    return this.liveBy.get(webhookId) ?? 0;
  }

  private keepLive(d: DeliveryRecord): void {
    if (!this.live.has(d.seq)) this.liveBy.set(d.webhook_id, this.inPlay(d.webhook_id) + 1);
    this.live.set(d.seq, d);
  }

  private letGo(d: DeliveryRecord): void {
    if (!this.live.delete(d.seq)) return;
    const n = this.inPlay(d.webhook_id) - 1;
    if (n > 0) this.liveBy.set(d.webhook_id, n);
    else this.liveBy.delete(d.webhook_id);
  }

  /** Writes a delivery's record; memory keeps it while it is pending, and lets it go once it is not. */
  saveDelivery(d: DeliveryRecord): void {
    const { body: event, event_pos: pos, ...record } = d;
    const json = JSON.stringify(record);
    this.write(
      'putDelivery',
      () =>
        this.stmts.putDelivery!.run(
          d.seq,
          d.id,
          json,
          d.event_id,
          d.webhook_id,
          d.status,
          pos ?? null,
          pos === undefined ? event : null,
          seqOfDeliveryId(d.id) === d.seq ? null : 1,
        ),
      () => (d.status === 'pending' ? this.keepLive(d) : this.letGo(d)),
    );
  }

  /** A delivery in play (made and not yet tried, or pending a retry), from memory. */
  liveDelivery(seq: number): DeliveryRecord | undefined {
    return this.live.get(seq);
  }

  /** How many deliveries are in play. */
  get liveCount(): number {
    return this.live.size;
  }

  /** The deliveries in play, oldest first. */
  liveDeliveries(): DeliveryRecord[] {
    return [...this.live.values()].sort((a, b) => a.seq - b.seq);
  }

  /** A delivery by id, with its body (undefined once its event has expired), or undefined when none is kept. */
  delivery(id: string): DeliveryRecord | undefined {
    const seq = seqOfDeliveryId(id) ?? Number(this.stmts.getAliasedDelivery!.get(id)?.seq ?? Number.NaN);
    if (!Number.isFinite(seq)) return undefined;
    const d = this.live.get(seq) ?? this.readDelivery(seq);
    return d?.id === id ? d : undefined;
  }

  /** A delivery's record by seq, without its body (what a page of them shows). */
  deliveryAt(seq: number): DeliveryRecord | undefined {
    const live = this.live.get(seq);
    if (live) return live;
    const row = this.stmts.getDeliveryRecord!.get(seq);
    return row ? (JSON.parse(row.body as string) as DeliveryRecord) : undefined;
  }

  /** Whether an id not found is one that expired (a delivery of this sandbox's making, older than those kept). */
  expired(id: string): boolean {
    const seq = seqOfDeliveryId(id);
    return seq !== null && seq >= this.resetBelowSeq && seq < this.expiredBelowSeq;
  }

  private readDelivery(seq: number): DeliveryRecord | undefined {
    const row = this.stmts.getDelivery!.get(seq);
    if (!row) return undefined;
    const d = JSON.parse(row.body as string) as DeliveryRecord;
    // (no body when its event expired first; a record of the oldest orcs has it inside)
    if (typeof row.event === 'string') d.body = row.event;
    return d;
  }

  /** Each delivery kept, by seq, with its webhook (oldest first): what the dispatcher's lists are made from. */
  *deliveryPlaces(): Generator<DeliveryPlace> {
    for (const row of this.db.prepare('SELECT seq, webhook_id FROM deliveries ORDER BY seq').iterate())
      yield { seq: Number(row.seq), webhook_id: row.webhook_id as string };
  }

  /** The webhook and event place of every delivery made for an event after `pos`: after a restart, the
   * backlog's deliveries already made are not made again. */
  *deliveredAfter(pos: number): Generator<{ webhook_id: string; event_pos: number }> {
    for (const row of this.db.prepare('SELECT webhook_id, event_pos FROM deliveries WHERE event_pos > ?').iterate(pos))
      yield { webhook_id: row.webhook_id as string, event_pos: Number(row.event_pos) };
  }

  /** The last seq given out. */
  lastSeq(): number {
    return this.seq;
  }

  /** Every delivery with a seq below this has expired. */
  get expiredBelow(): number {
    return this.expiredBelowSeq;
  }

  /**
   * Retention: the deliveries with a seq below `seq` go, but those in play (pending: their attempts are not
   * over), and the bodies an older orc kept apart for them. Their ids are then answered as expired.
   */
  pruneDeliveries(seq: number): void {
    // (never lower: and what was pending below it when it moved, and has finished since, goes now)
    const below = Math.max(seq, this.expiredBelowSeq);
    this.write(
      'pruneDeliveries',
      () => {
        this.stmts.pruneDeliveries!.run(below);
        this.stmts.putMeta!.run('deliveries_expired_below', String(below));
        if (this.db.prepare('SELECT 1 FROM delivery_events LIMIT 1').get())
          this.db.exec(
            'DELETE FROM delivery_events WHERE id NOT IN (SELECT event_id FROM deliveries WHERE event_pos IS NULL AND event IS NULL)',
          );
      },
      () => (this.expiredBelowSeq = below),
    );
  }

  /** Retention: the events written before `ms` (by the sandbox's clock) go, `limit` at most, the oldest
   * first; answers how many went. */
  pruneEventsBefore(ms: number, limit: number): number {
    const first = Number(this.stmts.firstEventFrom!.get(0)?.rowid ?? 0);
    const pos = Math.min(
      first + limit,
      this.firstAtOrAfter(this.stmts.firstEventFrom!, 'rowid', ms, this.lastEventPos() + 1),
    );
    let gone = 0;
    // A delivery in play whose event goes keeps its body in its own row: its attempts are not over.
    const orphans = [...this.live.values()].filter((d) => d.event_pos !== undefined && d.event_pos < pos);
    this.write(
      'pruneEvents',
      () => {
        for (const d of orphans) this.stmts.ownBody!.run(d.body, d.seq);
        gone = Number(this.stmts.pruneEvents!.run(pos).changes);
      },
      () => {
        this.eventCache.clear();
        for (const d of orphans) delete d.event_pos;
      },
    );
    return gone;
  }

  /** The seq of the first delivery made at or after `ms` (every one before it is older). */
  deliverySeqAt(ms: number): number {
    return this.firstAtOrAfter(this.stmts.firstDeliveryFrom!, 'seq', ms, this.seq + 1);
  }

  /** The oldest time an event or a delivery that can expire (not pending) was made (ms), or null when none is. */
  oldestKept(): number | null {
    const times = [this.stmts.firstEventFrom!.get(0), this.stmts.firstSettledDelivery!.get()]
      .map((row) => (row ? Date.parse(String(row.at)) : Number.NaN))
      .filter(Number.isFinite);
    return times.length ? Math.min(...times) : null;
  }

  /**
   * The first key (rowid or seq) whose row was made at or after `ms`, by bisection over the keys (rows are
   * made in the order of the clock, which never goes back): `end` when every row is older.
   */
  private firstAtOrAfter(first: StatementSync, key: string, ms: number, end: number): number {
    let lo = 0;
    let hi = end;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const row = first.get(mid);
      // (an older row found past the middle: every key up to it is older too)
      if (row && Date.parse(String(row.at)) < ms) lo = Number(row[key]) + 1;
      else hi = mid;
    }
    return lo;
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

  /** The whole record (the committed one), or undefined when there is no such run. Kept in memory while the
   * run moves: an ended one is read from the database when asked (it is rarely asked twice), so a sandbox
   * that has run for weeks holds the records of the runs moving, not of the last thousand. */
  get(id: string): RunRecord | undefined {
    const cached = this.whole.get(id);
    if (cached) {
      this.whole.delete(id);
      this.whole.set(id, cached);
      return cached;
    }
    if (!this.views.has(id)) return undefined;
    const rec = this.read(id);
    if (rec && this.mayKeep() && !TERMINAL_STATUSES.has(rec.run.status)) this.keep(id, rec);
    return rec;
  }

  /** What a list shows of a run: its seq and its `run`. */
  view(id: string): { seq: number; run: RunRecord['run'] } | undefined {
    return this.views.get(id);
  }

  set(id: string, rec: RunRecord): void {
    this.views.set(id, { seq: rec.seq, run: rec.run });
    if (TERMINAL_STATUSES.has(rec.run.status)) this.whole.delete(id);
    else this.keep(id, rec);
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
