// Server-sent events as orc reads them: framing on bytes, the 1 MiB cap, silence counted in whole messages,
// resuming after the last id, and the tolerant reader's "show it even if a field has an odd type".
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Api } from '../../src/api/index.js';
import { HttpClient } from '../../src/api/http.js';
import { SseParser, SseTooLargeError, readEventStream, type SseMessage, type StreamItem } from '../../src/api/sse.js';
import { watchRun, type WatchEvent } from '../../src/watch/engine.js';
import { FakeClock } from '../helpers/clock.js';
import { handServer, json, type HandServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const parse = (chunks: string[]) => {
  const got: Array<SseMessage | { comment: string } | { retry: number }> = [];
  const p = new SseParser({
    message: (m) => got.push(m),
    comment: (c) => got.push({ comment: c }),
    retry: (ms) => got.push({ retry: ms }),
  });
  for (const c of chunks) p.feed(Buffer.from(c));
  return got;
};

describe('the parser', () => {
  it('frames on LF, CRLF (even split across reads) and CR; joins data lines; reads comments and retry', () => {
    expect(parse(['retry: 2000\n\n: keep-alive\n\nid: 1\nevent: run.created\ndata: {"a":\n', 'data: 1}\n\n'])).toEqual([
      { retry: 2000 },
      { comment: 'keep-alive' },
      { id: '1', event: 'run.created', data: '{"a":\n1}' },
    ]);
    expect(parse(['id: 2\r', '\ndata: x\r\n\r', '\n'])).toEqual([{ id: '2', event: 'message', data: 'x' }]);
    expect(parse(['data: a\rdata: b\r\r'])).toEqual([{ id: null, event: 'message', data: 'a\nb' }]);
    expect(parse(['data: é😀\n\n'])).toEqual([{ id: null, event: 'message', data: 'é😀' }]);
  });

  it('strips one leading byte-order mark, even split across reads, and only one', () => {
    const first = { id: '1', event: 'message', data: 'x' };
    expect(parse(['\ufeffid: 1\ndata: x\n\n'])).toEqual([first]);
    const bom = Buffer.from('\ufeff');
    const got: SseMessage[] = [];
    const p = new SseParser({ message: (m) => got.push(m) });
    for (const b of [
      bom.subarray(0, 1),
      bom.subarray(1, 2),
      Buffer.concat([bom.subarray(2), Buffer.from('id: 1\ndata: x\n\n')]),
    ])
      p.feed(b);
    expect(got).toEqual([first]);
    // A second mark is the name of a field orc does not know, so that message has no data.
    expect(parse(['\ufeff\ufeffdata: x\n\ndata: y\n\n'])).toEqual([{ id: null, event: 'message', data: 'y' }]);
  });

  it('refuses a message over 1 MiB, counted in bytes, before holding it all', () => {
    const p = new SseParser({ message: () => {} });
    p.feed(Buffer.from('data: '));
    expect(() => p.feed(Buffer.alloc(1024 * 1024, 0x61))).toThrow(SseTooLargeError);
  });

  it('counts every data line of a message toward the cap, however many comment lines come between them', () => {
    const got: SseMessage[] = [];
    const p = new SseParser({ message: (m) => got.push(m) });
    const line = `data: ${'a'.repeat(64 * 1024)}\n: keep-alive\n`;
    expect(() => {
      for (let i = 0; i < 17; i++) p.feed(Buffer.from(line));
    }).toThrow(SseTooLargeError);
    expect(got).toEqual([]);
    // Comments between whole messages still cost nothing: 40 messages of 64 KiB, each after a comment.
    const q = new SseParser({ message: (m) => got.push(m) });
    for (let i = 0; i < 40; i++) q.feed(Buffer.from(`: ping\ndata: ${'b'.repeat(64 * 1024)}\n\n`));
    expect(got).toHaveLength(40);
  });
});

let server: HandServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const event = (seq: number, type: string, data: Record<string, unknown>) =>
  `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ id: `evt_${seq}`, type, created_at: '2026-11-22T10:00:00.000Z', run_id: 'run_1', data })}\n\n`;

describe('the reader', () => {
  it('counts a stream that trickles bytes but no whole message as silent, then resumes after the last id', async () => {
    const timers: NodeJS.Timeout[] = [];
    let trickled = 0;
    server = await handServer((req, res, n) => {
      sse(res);
      if (n === 1) {
        res.write(event(1, 'run.created', { mode: 'idea' }));
        // then a byte at a time of a message that never ends
        timers.push(setInterval(() => (res.write('d'), trickled++), 5));
        return;
      }
      res.end(event(2, 'run.accepted', { app_id: '1' }) + `: resumed after ${req.headers['last-event-id']}\n\n`);
    });
    const clock = new FakeClock({ autoMs: 5_000 });
    const http = new HttpClient({
      baseUrl: server.url,
      apiKey: 'sk_test_x1234567',
      userAgent: 't',
      clock,
      random: () => 0,
    });
    const items: StreamItem[] = [];
    const reading = (async () => {
      for await (const item of readEventStream(http, '/v1/runs/run_1/events', {
        idleMs: 45_000,
        maxReconnects: 3,
        what: 'the stream',
      })) {
        items.push(item);
        if (item.kind === 'messages' && item.messages.some((m) => m.id === '2')) return;
      }
    })();
    await until(() => items.some((i) => i.kind === 'messages'), 'the first message');
    const armedAfterMessage = clock.requested.filter((ms) => ms === 45_000).length;
    const from = trickled;
    await until(() => trickled >= from + 20, 'twenty bytes more'); // none of them a whole message
    expect(clock.requested.filter((ms) => ms === 45_000).length).toBe(armedAfterMessage); // the trickle never re-armed it
    clock.advance(45_000);
    await reading;
    timers.forEach(clearInterval);
    const reconnect = items.find((i) => i.kind === 'reconnecting') as Extract<StreamItem, { kind: 'reconnecting' }>;
    expect(reconnect.reason).toBe('nothing arrived for 45 s');
    expect(server.seen[1]!.headers['last-event-id']).toBe('1');
  });

  it('drops a connection that sends a message over 1 MiB, and resumes after the last whole one', async () => {
    server = await handServer((_req, res, n) => {
      sse(res);
      if (n === 1) res.end(event(1, 'run.created', { mode: 'idea' }) + `data: ${'x'.repeat(1024 * 1024 + 10)}\n\n`);
      else res.end(event(2, 'run.accepted', { app_id: '1' }));
    });
    const http = new HttpClient({
      baseUrl: server.url,
      apiKey: 'sk_test_x1234567',
      userAgent: 't',
      clock: new FakeClock({ autoMs: 5_000 }),
      random: () => 0,
    });
    const items: StreamItem[] = [];
    for await (const item of readEventStream(http, '/v1/runs/run_1/events', {
      idleMs: 45_000,
      maxReconnects: 3,
      what: 'the stream',
    })) {
      items.push(item);
      if (item.kind === 'messages' && item.messages.some((m) => m.id === '2')) break;
    }
    expect(items.map((i) => i.kind)).toEqual(['open', 'messages', 'reconnecting', 'open', 'messages']);
    expect((items[2] as { reason: string }).reason).toContain('larger than 1024 KiB; dropped the connection');
    expect(server.seen[1]!.headers['last-event-id']).toBe('1');
  });
});

describe('a stream that is over (204 No Content)', () => {
  it('ends the reader: no error, no reconnect', async () => {
    server = await handServer((_req, res) => res.writeHead(204).end());
    const http = new HttpClient({
      baseUrl: server.url,
      apiKey: 'sk_test_x1234567',
      userAgent: 't',
      clock: new FakeClock({ autoMs: 5_000 }),
      random: () => 0,
    });
    const items: StreamItem[] = [];
    for await (const item of readEventStream(http, '/v1/runs/run_1/events', {
      lastEventId: '9',
      idleMs: 45_000,
      maxReconnects: 3,
      what: 'the stream',
    }))
      items.push(item);
    expect(items).toEqual([]);
    expect(server.seen).toHaveLength(1);
  });

  it("ends the watch with the run's outcome, asked of the run, without falling back to polling", async () => {
    server = await handServer((req, res) => {
      if (req.url!.endsWith('/events')) return void res.writeHead(204).end();
      json(res, 200, {
        id: 'run_1',
        mode: 'idea',
        status: 'accepted',
        stage: '10_submit',
        gate_pending: null,
        app_id: '42',
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T11:00:00.000Z',
      });
    });
    const api = new Api(
      new HttpClient({ baseUrl: server.url, apiKey: 'sk_test_x1234567', userAgent: 't', clock: new FakeClock() }),
    );
    const seen: WatchEvent[] = [];
    for await (const ev of watchRun(api, 'run_1', { afterSeq: 9 })) seen.push(ev);
    expect(seen.map((e) => e.kind)).toEqual(['ended']);
    expect(seen[0]).toMatchObject({ status: 'accepted', event: { type: 'run.accepted', data: { app_id: '42' } } });
  });
});

describe('the watch engine', () => {
  it('shows an event whose data has a field of an unexpected type, and keeps the field as it came', async () => {
    server = await handServer((_req, res) => {
      sse(res);
      res.end(
        event(1, 'run.stage_changed', { stage: '05_build', percent: 'fifty' }) +
          event(2, 'run.accepted', { app_id: '1' }),
      );
    });
    const api = new Api(
      new HttpClient({ baseUrl: server.url, apiKey: 'sk_test_x1234567', userAgent: 't', clock: new FakeClock() }),
    );
    const seen: WatchEvent[] = [];
    for await (const ev of watchRun(api, 'run_1')) seen.push(ev);
    const stage = seen.find((e) => e.kind === 'event' && e.event.type === 'run.stage_changed') as Extract<
      WatchEvent,
      { kind: 'event' }
    >;
    expect(stage.event.data.stage).toBe('05_build');
    expect(stage.event.data.percent).toBeUndefined(); // the typed view leaves it out…
    expect((stage.raw as { data: { percent: unknown } }).data.percent).toBe('fifty'); // …what --json prints keeps it
    expect(seen.at(-1)).toMatchObject({ kind: 'ended', status: 'accepted' });
  });
});

it('frames the same messages however the bytes are cut: CR, LF and CRLF line ends, across chunk edges', () => {
  const pieces = [
    'data: a',
    '\n',
    '\r',
    '\r\n',
    'event: x',
    'id: 7',
    ':keep-alive',
    'retry: 5',
    'data: é€',
    'data',
    'field: y',
  ];
  const read = (buf: Buffer, cut: () => number) => {
    const out: unknown[] = [];
    const p = new SseParser({
      message: (m) => out.push(['message', m]),
      comment: (c) => out.push(['comment', c]),
      retry: (n) => out.push(['retry', n]),
    });
    for (let at = 0; at < buf.length; ) {
      const n = cut();
      p.feed(buf.subarray(at, at + n));
      at += n;
    }
    return out;
  };
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 500; round++) {
    let text = '';
    for (let i = 0; i < 30; i++) text += pieces[Math.floor(random() * pieces.length)];
    const buf = Buffer.from(text);
    expect(read(buf, () => 1 + Math.floor(random() * 8))).toEqual(read(buf, () => buf.length));
  }
});
