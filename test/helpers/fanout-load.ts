// The sustained webhook fan-out load, one for the soak bench and the e2e soak test: N webhooks on every event
// pointing at a receiver in its own process (fanout-receiver.ts), and R runs kept moving (each gate approved as
// it opens, a new run created whenever one ends), until stopped; then which recorded events each webhook lacks.
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';

export interface FanoutOptions {
  webhooks: number;
  runs: number;
  /** The sandbox's stage: the load looks at its runs four times a stage (between 50 and 500 ms). */
  stageMs?: number;
  /** The bound on each of the load's calls. */
  callMs?: number;
}

export interface ReceiverStats {
  deliveries: number;
  duplicates: number;
  badSignature: number;
  unknownHook: number;
  notAnEvent: number;
  /** Distinct event ids received, over all webhooks. */
  events: number;
  /** Delays from each event's created_at to its arrival, in ms: the median and the 99th percentile. */
  delayP50: number | null;
  delayP99: number | null;
}

export interface Missing {
  /** Non-log events of the load's ended runs, read back from the sandbox. */
  recorded: number;
  /** Deliveries owed and not received, over all webhooks. */
  total: number;
  /** Per webhook id that lacks any: how many, and the first few event ids. */
  byWebhook: Record<string, { count: number; first: string[] }>;
  /** Runs whose history could not be read (still moving, or the read failed): not counted above. */
  unread: number;
}

export interface FanoutLoad {
  readonly receiverUrl: string;
  readonly receiverPid: number;
  readonly webhookIds: readonly string[];
  /** Their secrets, in the same order: webhook n delivers to `${receiverUrl}/hook/${n}`. */
  readonly secrets: readonly string[];
  /** Runs created so far, and runs moving now. */
  readonly created: number;
  readonly moving: number;
  /** The load's own calls that failed (timed out, refused, an unexpected status), and the last reason. */
  readonly failures: { count: number; last: string };
  /** How many runs to keep moving from now on. */
  resize(runs: number): void;
  /** No new runs, no approvals; with `cancel`, every run still moving is canceled, so each one ends. */
  stop(opts?: { cancel?: boolean }): Promise<void>;
  stats(): Promise<ReceiverStats>;
  missing(): Promise<Missing>;
  /** Bodies as the sandbox delivered them (the first 2,000). */
  samples(): Promise<string[]>;
  close(): Promise<void>;
}

const TERMINAL = new Set(['accepted', 'rejected', 'failed', 'canceled']);
const idea = {
  mode: 'idea',
  idea: { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'free' },
};

/** The receiver process, and a request/answer channel to it. */
async function startReceiver(): Promise<{ child: ChildProcess; url: string; ask: <T>(m: object) => Promise<T> }> {
  const child = fork(resolve(import.meta.dirname, 'fanout-receiver.ts'), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, (v: unknown) => void>();
  let next = 0;
  const url = await new Promise<string>((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`the receiver exited ${code}`)));
    child.on('message', (m: { listening?: string; ask?: number; value?: unknown }) => {
      if (m.listening) ok(m.listening);
      if (m.ask !== undefined) waiting.get(m.ask)?.(m.value), waiting.delete(m.ask);
    });
  });
  const ask = <T>(m: object) =>
    new Promise<T>((ok) => {
      waiting.set(++next, ok as (v: unknown) => void);
      child.send({ ...m, ask: next });
    });
  return { child, url, ask };
}

export async function startFanoutLoad(baseUrl: string, key: string, o: FanoutOptions): Promise<FanoutLoad> {
  const callMs = o.callMs ?? 10_000;
  const failures = { count: 0, last: '' };
  /** A call of the load: its JSON, or null (counted) when it fails; a status in `fine` is no failure. */
  const call = async (method: string, path: string, body?: unknown, fine: number[] = []): Promise<any> => {
    try {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        signal: AbortSignal.timeout(callMs),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const value: any = await res.json();
      if (res.ok) return value;
      if (!fine.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${value?.error?.code ?? ''}`);
    } catch (err) {
      failures.count++;
      failures.last = (err as Error).message;
    }
    return null;
  };

  const receiver = await startReceiver();
  const webhookIds: string[] = [];
  const secrets: string[] = [];
  for (let i = 0; i < o.webhooks; i++) {
    const w = await call('POST', '/v1/webhooks', { url: `${receiver.url}/hook/${i}`, events: ['*'] });
    if (!w) throw new Error(`the load could not register its webhooks: ${failures.last}`);
    webhookIds.push(w.id);
    secrets.push(w.secret);
  }
  await receiver.ask({ op: 'secrets', secrets });

  const driver = new RunDriver(call, o.runs);
  const pace = Math.min(500, Math.max(50, (o.stageMs ?? 4000) / 4));
  let stopped = false;
  const loop = (async () => {
    for (; !stopped; await new Promise((ok) => setTimeout(ok, pace))) await driver.sweep(() => stopped);
  })();
  const history = new RunHistory(baseUrl, key, callMs);

  return {
    receiverUrl: receiver.url,
    receiverPid: receiver.child.pid!,
    webhookIds,
    secrets,
    get created() {
      return driver.created;
    },
    get moving() {
      return driver.moving.size;
    },
    failures,
    resize: (runs) => void (driver.target = runs),
    async stop({ cancel = false } = {}) {
      stopped = true;
      await loop;
      if (cancel) await driver.cancelAll();
    },
    stats: () => receiver.ask<ReceiverStats>({ op: 'stats' }),
    async missing() {
      const { ids, unread } = await history.read(driver.ended, driver.moving.size);
      const lost = await receiver.ask<Array<{ count: number; first: string[] }>>({ op: 'missing', ids });
      const byWebhook: Missing['byWebhook'] = {};
      lost.forEach((l, i) => l.count > 0 && (byWebhook[webhookIds[i]!] = l));
      return { recorded: ids.length, total: lost.reduce((n, l) => n + l.count, 0), byWebhook, unread };
    },
    samples: () => receiver.ask<string[]>({ op: 'samples' }),
    async close() {
      stopped = true;
      await loop;
      if (receiver.child.connected) await receiver.ask({ op: 'close' });
    },
  };
}

type Call = (method: string, path: string, body?: unknown, fine?: number[]) => Promise<any>;

/** Keeps `target` runs moving: each sweep lists the moving ones (two statuses, paged), approves the gates
 * pending, and replaces the runs that ended. A run a listing did not show is asked for by itself (it may
 * have changed status between two pages) before it counts as ended. */
class RunDriver {
  created = 0;
  readonly moving = new Set<string>();
  readonly ended: string[] = [];
  private readonly approving = new Set<string>();
  private readonly call: Call;
  target: number;

  constructor(call: Call, target: number) {
    this.call = call;
    this.target = target;
  }

  async sweep(stopped: () => boolean): Promise<void> {
    const seen = new Map<string, any>();
    for (const status of ['running', 'awaiting_approval']) await this.list(status, seen);
    await Promise.all(
      [...this.moving].map(async (id) => {
        const run = seen.get(id) ?? (await this.call('GET', `/v1/runs/${id}`));
        if (!run) return;
        if (TERMINAL.has(run.status)) return this.end(id);
        if (run.gate_pending && !stopped()) await this.approve(id, run.gate_pending);
      }),
    );
    const wanted = stopped() ? 0 : this.target - this.moving.size;
    await Promise.all(Array.from({ length: Math.max(0, wanted) }, () => this.create()));
  }

  private async list(status: string, into: Map<string, any>): Promise<void> {
    let cursor: string | null = null;
    do {
      const page: any = await this.call(
        'GET',
        `/v1/runs?status=${status}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      if (!page) return;
      for (const r of page.data) into.set(r.id, r);
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
  }

  private async approve(id: string, gate: string): Promise<void> {
    const key = `${id}/${gate}`;
    if (this.approving.has(key)) return;
    this.approving.add(key);
    // (409: decided meanwhile, or the run moved on: no failure of the load)
    await this.call('POST', `/v1/runs/${id}/gates/${gate}:approve`, {}, [409]);
    this.approving.delete(key);
  }

  private async create(): Promise<void> {
    const run = await this.call('POST', '/v1/runs', idea);
    if (!run) return;
    this.created++;
    this.moving.add(run.id);
  }

  private end(id: string): void {
    if (this.moving.delete(id)) this.ended.push(id);
  }

  async cancelAll(): Promise<void> {
    const ids = [...this.moving];
    for (let i = 0; i < ids.length; i += 8)
      await Promise.all(
        ids.slice(i, i + 8).map(async (id) => {
          // (409 run_not_active: it ended on its own meanwhile)
          await this.call('POST', `/v1/runs/${id}/cancel`, undefined, [409]);
          const run = await this.call('GET', `/v1/runs/${id}`);
          if (run && TERMINAL.has(run.status)) this.end(id);
        }),
      );
  }
}

/** The non-log events of ended runs, each run's read once from its event stream (which replays the run's
 * history and ends at its terminal event), a few at a time. */
class RunHistory {
  private readonly done = new Map<string, string[]>();
  private readonly baseUrl: string;
  private readonly key: string;
  private readonly callMs: number;

  constructor(baseUrl: string, key: string, callMs: number) {
    this.baseUrl = baseUrl;
    this.key = key;
    this.callMs = callMs;
  }

  async read(ended: readonly string[], stillMoving: number): Promise<{ ids: string[]; unread: number }> {
    const todo = ended.filter((id) => !this.done.has(id));
    for (let i = 0; i < todo.length; i += 4) await Promise.all(todo.slice(i, i + 4).map((id) => this.readRun(id)));
    const ids = ended.flatMap((id) => this.done.get(id) ?? []);
    return { ids, unread: stillMoving + ended.filter((id) => !this.done.has(id)).length };
  }

  private async readRun(id: string): Promise<void> {
    try {
      const res = await fetch(`${this.baseUrl}/v1/runs/${id}/events`, {
        signal: AbortSignal.timeout(Math.max(this.callMs, 30_000)),
        headers: { authorization: `Bearer ${this.key}`, accept: 'text/event-stream' },
      });
      if (!res.ok) return;
      const ids: string[] = [];
      for (const frame of (await res.text()).split('\n\n')) {
        const lines = frame.split('\n');
        const data = lines.find((l) => l.startsWith('data: '));
        if (!data || lines.includes('event: log')) continue;
        ids.push((JSON.parse(data.slice(6)) as { id: string }).id);
      }
      this.done.set(id, ids);
    } catch {
      // read again at the next missing()
    }
  }
}
