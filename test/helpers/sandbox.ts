// Starts a real sandbox on 127.0.0.1:0 in this process and talks to it over real HTTP.
import { SANDBOX_DEFAULT_KEY } from '../../src/contract/keys.js';
import { FakeClock } from './clock.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { checkAnswer } from './openapi.js';
import { until } from './until.js';

export const KEY = SANDBOX_DEFAULT_KEY;

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestSandbox extends RunningSandbox {
  /** What the sandbox said (its logger's lines), kept here rather than printed. */
  logs: string[];
  call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer<T>>;
  createRun(pitch?: string, extra?: Record<string, string>): Promise<any>;
  waitFor(runId: string, pred: (run: any) => boolean, timeoutMs?: number): Promise<any>;
  /** On a FakeClock with `autoMs` (quickClock): resolves once the pipeline ticks and backoff it had scheduled
   * so far have run. On any other clock at once: nothing fires by itself on a clock the test moves. */
  settled(): Promise<void>;
  /** Waits until every artifact of the run is ready (a binary kind is described a moment after its stage). */
  artifactsReady(runId: string): Promise<any[]>;
}

/** The ipa of a test sandbox, in MiB: the smallest the knob allows. Making and hashing the default 20 MiB
 * took real seconds a run on a busy machine; a test where the size matters asks for it (spec-artifacts). */
export const TEST_IPA_MIB = 1;

export async function startTestSandbox(opts: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
  const logs: string[] = [];
  const base = {
    host: '127.0.0.1',
    port: 0,
    dataPath: ':memory:',
    stageMs: 50,
    rateLimit: 0,
    retryBaseMs: 20,
    ipaMib: TEST_IPA_MIB,
  };
  const sb = await startSandbox({ ...base, log: (line) => logs.push(line), ...opts });
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const res = await fetch(`${sb.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    // Every answer a contract test sees is checked against the OpenAPI document orc ships.
    checkAnswer(method, path, res.status, parsed);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  const createRun = async (pitch = 'A habit tracker for runners', extra: Record<string, string> = {}) => {
    const res = await call(
      'POST',
      '/v1/runs',
      { mode: 'idea', idea: { pitch, audience: 'runners', monetization: 'freemium' } },
      extra,
    );
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
    return res.body;
  };
  // Asks again each time the sandbox's store commits a change, not every few ms against a wall-clock deadline.
  const waitFor = async (runId: string, pred: (run: any) => boolean, timeoutMs?: number) => {
    let last = '';
    const look = async () => {
      const res = await call('GET', `/v1/runs/${runId}`);
      last = res.text;
      return pred(res.body) ? res.body : undefined;
    };
    const wake = (again: () => void) => sb.store.onCommit(again);
    return until(look, `run ${runId} to satisfy ${pred}`, {
      ...(timeoutMs ? { timeoutMs } : {}),
      wake,
      seen: () => last,
    });
  };
  const artifactsReady = (runId: string) => {
    let last = '';
    const look = async () => {
      const res = await call('GET', `/v1/runs/${runId}/artifacts`);
      last = res.text;
      return res.body?.data?.every((a: { status: string }) => a.status === 'ready') && (res.body.data as any[]);
    };
    return until(look, `every artifact of ${runId} ready`, {
      wake: (again) => sb.store.onCommit(again),
      seen: () => last,
    });
  };
  const given = opts.clock; // (the sandbox's own may wrap it: a data folder's clock never goes back)
  const settled = () => (given instanceof FakeClock ? given.settled() : Promise.resolve());
  return Object.assign(sb, { call, createRun, waitFor, settled, artifactsReady, logs });
}

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

/** Reads an SSE stream to its end (or until `stopAfter` says so), frame by frame, with the raw fields. */
export async function readSse(
  url: string,
  headers: Record<string, string> = {},
  stopAfter?: (m: SseMessage[]) => boolean,
): Promise<SseMessage[]> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const out: SseMessage[] = [];
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const m: SseMessage = {};
        for (const line of frame.split('\n')) {
          if (line.startsWith(':')) m.comment = line.slice(1).trim();
          else {
            const c = line.indexOf(':');
            const field = line.slice(0, c);
            const value = line.slice(c + 1).replace(/^ /, '');
            if (field === 'id') m.id = value;
            else if (field === 'event') m.event = value;
            else if (field === 'data') m.data = m.data === undefined ? value : `${m.data}\n${value}`;
            else if (field === 'retry') m.retry = Number(value);
          }
        }
        out.push(m);
        if (stopAfter?.(out)) {
          controller.abort();
          return out;
        }
      }
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  return out;
}

/** Every delivery a webhook lists, page after page (newest first). */
export async function allDeliveries(
  sb: TestSandbox,
  webhookId: string,
): Promise<Array<{ id: string; status: string; attempts: number }>> {
  const out: Array<{ id: string; status: string; attempts: number }> = [];
  for (let cursor = ''; ; ) {
    const page = (await sb.call('GET', `/v1/webhooks/${webhookId}/deliveries?limit=100${cursor}`)).body;
    out.push(...page.data);
    if (!page.has_more) return out;
    cursor = `&cursor=${page.next_cursor}`;
  }
}

/** Approves every gate as it opens, until the run ends; answers the final run. */
export async function driveToEnd(
  sb: TestSandbox,
  runId: string,
  decide: (gate: string) => 'approve' | { reject: string } = () => 'approve',
): Promise<any> {
  for (;;) {
    const run = await sb.waitFor(runId, (r) => r.status !== 'running');
    if (run.status !== 'awaiting_approval') return run;
    const d = decide(run.gate_pending);
    const res =
      d === 'approve'
        ? await sb.call('POST', `/v1/runs/${runId}/gates/${run.gate_pending}:approve`)
        : await sb.call('POST', `/v1/runs/${runId}/gates/${run.gate_pending}:reject`, { notes: d.reject });
    if (res.status !== 200) throw new Error(`decision failed: ${res.text}`);
  }
}

/** A sandbox clock for tests that only need runs to move: its waits under 9 s (the pipeline's ticks, webhook
 * backoff) pass at once, on the next turn of the event loop; longer ones (a keep-alive, a delivery's timeout)
 * wait until the test moves it. */
export function quickClock(): FakeClock {
  return new FakeClock({ autoMs: 9_000 });
}
