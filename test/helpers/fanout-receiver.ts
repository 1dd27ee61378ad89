// The fan-out load's receiver, in a process of its own (its CPU is neither the test's nor the bench's probe's):
// one node:http server taking every webhook's deliveries at /hook/<n>, each signature checked with that
// webhook's secret, and for each webhook which event ids arrived. Driven over IPC by test/helpers/fanout-load.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifySignature } from '../../src/contract/signature.ts';

/** How many delivered bodies are kept as they came, for the bare poster to send again (bench, item 3). */
const SAMPLES = 2_000;

const secrets: string[] = [];
/** Every event id seen, numbered once: a webhook's record is then a byte per event, not a set of strings
 * (10 minutes of 100 webhooks would be millions of strings). */
const numbered = new Map<string, number>();
/** Per webhook: how many times each numbered event arrived (at most 255). */
const arrived: Uint8Array[] = [];
const samples: string[] = [];
const counts = { deliveries: 0, duplicates: 0, badSignature: 0, unknownHook: 0, notAnEvent: 0 };
/** Deliveries by their delay from the event's created_at, in ms (the last slot: a minute or more). */
const delays = new Uint32Array(60_001);

/** The delay under which a share `p` of the deliveries arrived. */
function delayAt(p: number): number | null {
  let left = Math.ceil(counts.deliveries * p);
  if (left === 0) return null;
  for (let ms = 0; ms < delays.length; ms++) if ((left -= delays[ms]!) <= 0) return ms;
  return null;
}

function mark(hook: number, id: string): void {
  let n = numbered.get(id);
  if (n === undefined) numbered.set(id, (n = numbered.size));
  let row = arrived[hook] ?? new Uint8Array(1024);
  if (n >= row.length) {
    const grown = new Uint8Array(Math.max(row.length * 2, n + 1));
    grown.set(row);
    row = grown;
  }
  arrived[hook] = row;
  if (row[n]! > 0) counts.duplicates++;
  if (row[n]! < 255) row[n]!++;
}

function take(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
  const hook = Number(/^\/hook\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
  const secret = secrets[hook];
  // Not told its secret yet: answered 503, so the sandbox tries again later.
  if (!secret) return void (counts.unknownHook++, res.writeHead(503, { 'content-length': '0' }).end());
  if (!verifySignature(secret, req.headers[SIGNATURE_HEADER] as string | undefined, raw).ok)
    return void (counts.badSignature++, res.writeHead(400, { 'content-length': '0' }).end());
  let ev: { id?: unknown; created_at?: unknown } = {};
  try {
    ev = JSON.parse(raw.toString('utf8'));
  } catch {}
  const id = ev.id;
  if (typeof id !== 'string') return void (counts.notAnEvent++, res.writeHead(400, { 'content-length': '0' }).end());
  counts.deliveries++;
  const delay = Date.now() - Date.parse(String(ev.created_at));
  if (delay >= 0) delays[Math.min(delay, delays.length - 1)]!++;
  mark(hook, id);
  if (samples.length < SAMPLES) samples.push(raw.toString('utf8'));
  res.writeHead(200, { 'content-length': '0' }).end();
}

/** For each webhook, the given event ids it has not received: how many, and the first few. */
function missing(ids: string[]): Array<{ count: number; first: string[] }> {
  return secrets.map((_, hook) => {
    const row = arrived[hook];
    const lost = ids.filter((id) => {
      const n = numbered.get(id);
      return n === undefined || !row || !(row[n]! > 0);
    });
    return { count: lost.length, first: lost.slice(0, 5) };
  });
}

type Ask =
  | { ask: number; op: 'secrets'; secrets: string[] }
  | { ask: number; op: 'stats' | 'samples' | 'close' }
  | {
      ask: number;
      op: 'missing';
      ids: string[];
    };

const server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => take(req, res, Buffer.concat(chunks)));
});

process.on('message', (m: Ask) => {
  const answer = (value: unknown) => process.send!({ ask: m.ask, value });
  if (m.op === 'secrets') secrets.push(...m.secrets);
  if (m.op === 'secrets') return answer(secrets.length);
  if (m.op === 'stats')
    return answer({ ...counts, events: numbered.size, delayP50: delayAt(0.5), delayP99: delayAt(0.99) });
  if (m.op === 'samples') return answer(samples);
  if (m.op === 'missing') return answer(missing(m.ids));
  server.closeAllConnections();
  server.close(() => (answer(true), process.disconnect()));
});
// The parent gone (a test killed), nothing is left listening.
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () =>
  process.send!({ listening: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
);
