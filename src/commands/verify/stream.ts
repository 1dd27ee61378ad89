// One run's event stream held against the contract: read (through orc's own SSE parser) until its history is
// replayed, each message's framing (`id:` an increasing integer, `event:` the data's type, `data:` one line of
// JSON), each data an Event envelope, each log line's shape.
import type { Answer } from '../../api/http.js';
import { SseParser, type SseMessage } from '../../api/sse.js';
import { LOG_EVENT, LOG_LEVELS, TERMINAL_EVENTS } from '../../contract/events.js';
import { formatDuration } from '../../lib/duration.js';
import { readText } from '../../api/answer.js';
import { checkHeaders, checkShape, limited, parseJudged, shown, type Schemas } from './judge.js';
import type { Divergence, Probe } from './types.js';

export const STREAM_OP = 'SSE /v1/runs/{id}/events';
/** A run still going never ends its stream: its history counts as replayed after this long with nothing new. */
const QUIET_MS = 2_000;
/** A moving run's stream is read this long at most, whatever keeps coming (the history and a few seconds). */
export const MOVING_READ_MS = 10_000;
/** After the terminal event the stream closes (the contract): this long open after it is a divergence. */
export const CLOSE_MS = 3_000;
/** How long an ended run's stream may be quiet with no terminal event before verify says so and stops. */
export const ENDED_QUIET_MS = 5_000;

export async function checkStream(probe: Probe, s: Schemas, runId: string, ended: boolean): Promise<void> {
  const answer = await probe.api.http.send({
    method: 'GET',
    target: `/v1/runs/${encodeURIComponent(runId)}/events`,
    headers: { accept: 'text/event-stream' },
    retryLimitsOnly: true,
    deadline: false,
    bodyTimeoutMs: 0,
    longLived: true,
    anyStatus: true,
    ...(probe.signal ? { signal: probe.signal } : {}),
  });
  checkHeaders(probe, STREAM_OP, answer);
  if (answer.status === 403) {
    answer.body.destroy();
    return probe.skip(STREAM_OP, 'the key may not read it (403)');
  }
  if (limited(answer)) {
    answer.body.destroy();
    return probe.skip(STREAM_OP, `rate-limited (${answer.status} after waiting)`);
  }
  probe.checked(STREAM_OP);
  const type = answer.header('content-type') ?? '';
  if (answer.status !== 200 || !type.startsWith('text/event-stream')) {
    const text = await readText(answer.body, 4096).catch(() => '');
    return probe.diverge({
      operation: STREAM_OP,
      path: answer.status !== 200 ? 'status' : 'header Content-Type',
      expected: answer.status !== 200 ? '200' : 'text/event-stream',
      got: answer.status !== 200 ? `${answer.status} ${shown(text.slice(0, 60))}` : shown(type),
    });
  }
  const judge = new StreamJudge(probe, s);
  const read = await readMessages(probe, answer, ended, (m) => judge.message(m));
  if (read.broken)
    probe.diverge({ operation: STREAM_OP, path: 'stream', expected: 'whole messages to its end', got: read.broken });
  if (read.stopped === 'open')
    probe.diverge({
      operation: STREAM_OP,
      path: 'stream',
      expected: 'closed after the terminal event',
      got: `still open after ${formatDuration(CLOSE_MS)}`,
    });
  if (ended && !read.terminal)
    probe.diverge({
      operation: STREAM_OP,
      path: 'stream',
      expected: 'the terminal event (the run has ended), then the close',
      got:
        read.stopped === 'silent'
          ? `no terminal event, and still open after ${formatDuration(ENDED_QUIET_MS)} of quiet`
          : 'closed without a terminal event',
    });
  if (read.stopped === 'cap')
    probe.say(`read the stream of run ${runId}, still moving, for ${formatDuration(MOVING_READ_MS)}`);
  if (judge.count === 0)
    probe.diverge({ operation: STREAM_OP, path: 'stream', expected: "the run's history replayed", got: 'no message' });
}

/** Why the read stopped before the stream ended: quiet (a run still going, its history replayed), the cap on a
 * moving run's read, or a stream left open after its terminal event. */
type Stopped = 'quiet' | 'cap' | 'open' | 'silent' | null;

/** Every message until the stream ends (a finished run's closes after its terminal event, or is told open), or,
 * for a run still going, until it has been quiet for a while or read for MOVING_READ_MS in all. */
async function readMessages(
  probe: Probe,
  answer: Answer,
  ended: boolean,
  message: (m: SseMessage) => void,
): Promise<{ broken: string | null; stopped: Stopped; terminal: boolean }> {
  const clock = probe.api.http.clock;
  let stopped: Stopped = null;
  const stop = (why: Stopped) => () => ((stopped ??= why), answer.body.destroy());
  let closing: (() => void) | null = null;
  const parser = new SseParser({
    message: (m) => {
      message(m);
      if (TERMINAL_EVENTS.has(m.event) && !closing) closing = clock.timer(CLOSE_MS, stop('open'));
    },
  });
  let quiet = () => {};
  // A run still going: until its history is replayed (quiet a while). An ended run's stream ends by itself,
  // after its terminal event; one that neither sends it nor closes is stopped after a longer quiet.
  const arm = () => {
    quiet();
    if (!closing) quiet = ended ? clock.timer(ENDED_QUIET_MS, stop('silent')) : clock.timer(QUIET_MS, stop('quiet'));
  };
  const cap = ended ? () => {} : clock.timer(MOVING_READ_MS, stop('cap'));
  try {
    arm();
    for await (const chunk of answer.body) {
      parser.feed(chunk as Buffer);
      arm();
    }
  } catch (err) {
    if (!stopped) return { broken: (err as Error).message, stopped, terminal: closing !== null };
  } finally {
    for (const cancel of [quiet, cap, closing ?? (() => {})]) cancel();
    answer.body.destroy();
  }
  return { broken: null, stopped, terminal: closing !== null };
}

/** Each message judged as it comes; each kind of divergence told once for the stream. */
class StreamJudge {
  count = 0;
  private lastId: bigint | null = null;
  private readonly told = new Set<string>();

  constructor(
    private readonly probe: Probe,
    private readonly s: Schemas,
  ) {}

  message(m: SseMessage): void {
    this.count++;
    this.framing(m);
    let data: unknown;
    try {
      data = parseJudged(m.data, (d) => this.tell(d), 'data:');
    } catch {
      return this.tell({ path: 'data:', expected: 'one line of JSON (an Event)', got: shown(m.data.slice(0, 80)) });
    }
    if (m.data.includes('\n')) this.tell({ path: 'data:', expected: 'one line', got: 'several data: lines' });
    const sink: Probe = { ...this.probe, diverge: (d) => this.tell(d) };
    checkShape(sink, STREAM_OP, this.s.Event, data, 'data.');
    const event = data as { type?: unknown; data?: Record<string, unknown> };
    if (event.type !== undefined && m.event !== event.type)
      this.tell({ path: 'event:', expected: `the data's type (${shown(event.type)})`, got: shown(m.event) });
    if (m.event === LOG_EVENT) this.logLine(event.data);
  }

  private framing(m: SseMessage): void {
    if (m.id === null) return this.tell({ path: 'id:', expected: 'an id on every message', got: 'none' });
    if (!/^\d+$/.test(m.id)) return this.tell({ path: 'id:', expected: 'an integer', got: shown(m.id) });
    const id = BigInt(m.id);
    if (this.lastId !== null && id <= this.lastId)
      this.tell({ path: 'id:', expected: `greater than ${this.lastId}`, got: m.id });
    this.lastId = id;
  }

  /** A log line's data: `{ stage, level: info|warn|error, message, ts }`. */
  private logLine(data: Record<string, unknown> | undefined): void {
    for (const field of ['stage', 'message', 'ts'])
      if (typeof data?.[field] !== 'string')
        this.tell({ path: `data.data.${field}`, expected: 'a string (a log line)', got: shown(data?.[field]) });
    if (!(LOG_LEVELS as readonly unknown[]).includes(data?.level))
      this.tell({ path: 'data.data.level', expected: LOG_LEVELS.join(', '), got: shown(data?.level) });
  }

  private tell(d: Omit<Divergence, 'operation'> | Divergence): void {
    const key = `${d.path}\u0000${d.expected}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    this.probe.diverge({ ...d, operation: STREAM_OP });
  }
}
