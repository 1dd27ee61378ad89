// The event stream: retry first, history replay, Last-Event-ID resume, keep-alives, close after the end, many watchers.
import { once } from 'node:events';
import { get } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Event } from '../../src/contract/schemas.js';
import { KEY, driveToEnd, readSse, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { FakeClock } from '../helpers/clock.js';
import { until } from '../helpers/until.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ keepaliveMs: 40 });
});
afterAll(() => sb.close());

const dataOf = (ms: Awaited<ReturnType<typeof readSse>>) => ms.filter((m) => m.data !== undefined);

describe('GET /v1/runs/{id}/events', () => {
  it('opens with retry: 2000, replays the whole history with per-run ids, and closes after the terminal event', async () => {
    const run = await driveToEnd(sb, (await sb.createRun('A sleep sounds app')).id);
    const res = await fetch(`${sb.url}/v1/runs/${run.id}/events`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await res.body?.cancel();
    const ms = await readSse(`${sb.url}/v1/runs/${run.id}/events`);
    expect(ms[0]).toEqual({ retry: 2000 });
    const data = dataOf(ms);
    expect(data.map((m) => Number(m.id))).toEqual(data.map((_, i) => i + 1));
    for (const m of data) {
      const ev = Event.parse(JSON.parse(m.data!));
      expect(m.event).toBe(ev.type);
      expect(ev.run_id).toBe(run.id);
      expect(ev.id).toMatch(/^evt_/);
      expect(m.data!.includes('\n')).toBe(false);
    }
    expect(data.at(-1)!.event).toBe('run.accepted');
    const logs = data.filter((m) => m.event === 'log').map((m) => JSON.parse(m.data!).data);
    expect(logs.length).toBeGreaterThan(20);
    for (const l of logs)
      expect(l).toMatchObject({
        stage: expect.stringMatching(/^\d\d_/),
        level: expect.stringMatching(/^(info|warn|error)$/),
        message: expect.any(String),
        ts: expect.any(String),
      });
    expect(logs.some((l) => l.level === 'warn')).toBe(true);
  });

  it('resumes after Last-Event-ID without a gap or a duplicate', async () => {
    const run = await driveToEnd(sb, (await sb.createRun('A podcast clipper #fail')).id);
    const all = dataOf(await readSse(`${sb.url}/v1/runs/${run.id}/events`));
    const rest = dataOf(await readSse(`${sb.url}/v1/runs/${run.id}/events`, { 'last-event-id': '7' }));
    expect(rest.map((m) => m.id)).toEqual(all.slice(7).map((m) => m.id));
    expect(rest.map((m) => m.data)).toEqual(all.slice(7).map((m) => m.data));
  });

  it('streams live, sends keep-alives while a gate waits, and many watchers see the same events', async () => {
    const run = await sb.createRun('A choir rehearsal planner');
    const watchers = Array.from({ length: 40 }, () => readSse(`${sb.url}/v1/runs/${run.id}/events`));
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    // Two keep-alives at the gate, seen by one more watcher (every watcher is sent the same).
    await readSse(
      `${sb.url}/v1/runs/${run.id}/events`,
      {},
      (ms) => ms.filter((m) => m.comment === 'keep-alive').length >= 2,
    );
    await driveToEnd(sb, run.id);
    const results = await Promise.all(watchers);
    const reference = dataOf(results[0]!).map((m) => `${m.id}:${m.data}`);
    expect(reference.at(-1)).toContain('run.accepted');
    for (const r of results) expect(dataOf(r).map((m) => `${m.id}:${m.data}`)).toEqual(reference);
    expect(results[0]!.some((m) => m.comment === 'keep-alive')).toBe(true);
  });

  it('answers 204 to a Last-Event-ID that is the terminal event of an ended run (an EventSource stops there)', async () => {
    const run = await driveToEnd(sb, (await sb.createRun('A harbour webcam')).id);
    const all = dataOf(await readSse(`${sb.url}/v1/runs/${run.id}/events`));
    const terminal = all.at(-1)!;
    expect(terminal.event).toBe('run.accepted');
    const over = await sb.call('GET', `/v1/runs/${run.id}/events`, undefined, { 'last-event-id': terminal.id! });
    expect(over.status).toBe(204);
    expect(over.text).toBe('');
    // One before it: the terminal event, then the end.
    const last = dataOf(await readSse(`${sb.url}/v1/runs/${run.id}/events`, { 'last-event-id': all.at(-2)!.id! }));
    expect(last.map((m) => m.id)).toEqual([terminal.id]);
  });

  it('honours Connection: close: says so in its head, and closes the connection after the end', async () => {
    const run = await driveToEnd(sb, (await sb.createRun('A ferry timetable')).id);
    const open = (path: string) =>
      new Promise<{ connection: string | undefined; closed: Promise<unknown>; stop: () => void }>((resolve, reject) => {
        const req = get(
          `${sb.url}${path}`,
          { agent: false, headers: { authorization: `Bearer ${KEY}`, connection: 'close' } },
          (res) => {
            resolve({
              connection: res.headers.connection,
              closed: once(req.socket!, 'close'),
              stop: () => req.destroy(),
            });
            res.resume();
          },
        );
        req.on('error', reject);
      });
    const events = await open(`/v1/runs/${run.id}/events`);
    expect(events.connection).toBe('close');
    await events.closed; // the sandbox's close: the client never closes it
    // The firehose never ends by itself; its head says the same.
    const firehose = await open('/_sandbox/events');
    expect(firehose.connection).toBe('close');
    firehose.stop();
  });

  it('answers 404 for an unknown run and 401 without a key', async () => {
    const res = await sb.call('GET', '/v1/runs/run_missing/events');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('run_not_found');
    const anon = await fetch(`${sb.url}/v1/runs/run_missing/events`);
    expect(anon.status).toBe(401);
  });
});

describe('every stream the sandbox writes (runs, the firehose, the journal) goes through one writer', () => {
  it('sends keep-alives on the firehose and on the journal followed', async () => {
    for (const path of ['/_sandbox/events', '/_sandbox/logs?follow=1']) {
      const ms = await readSse(
        `${sb.url}${path}`,
        {},
        (got) => got.filter((m) => m.comment === 'keep-alive').length >= 2,
      );
      expect(ms.filter((m) => m.comment === 'keep-alive').length, path).toBe(2);
    }
  });

  it('drops a journal follower that never reads once it falls past the bound; what it holds stays bounded', async () => {
    const bound = 64 * 1024;
    const small = await startTestSandbox({ streamBacklogBytes: bound });
    const socket = connect(small.port, '127.0.0.1');
    try {
      await once(socket, 'connect');
      let closed = false;
      socket.on('close', () => (closed = true));
      socket.pause(); // a follower that never reads
      socket.write(
        `GET /_sandbox/logs?follow=1 HTTP/1.1\r\nHost: 127.0.0.1:${small.port}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
      );
      await until(() => small.streams().open === 1, 'the follower to be open');
      // Each request is a journal entry of about 8 KB (its path), written to the follower.
      const long = `/v1/runs/run_${'x'.repeat(8_000)}`;
      const entry = 9_000;
      let peak = 0;
      let sent = 0;
      do {
        const auth = { authorization: `Bearer ${KEY}` };
        const one = () => fetch(`${small.url}${long}`, { headers: auth }).then((r) => r.arrayBuffer());
        await Promise.all(Array.from({ length: 16 }, one));
        sent += 16;
        peak = Math.max(peak, small.streams().buffered);
      } while (small.streams().open > 0 && sent < 3_000);
      expect(small.streams().open).toBe(0);
      // The writer held at most the bound and the one entry that crossed it.
      expect(peak).toBeLessThanOrEqual(bound + 2 * entry);
      // The follower, reading at last, finds its connection closed by the sandbox.
      socket.resume();
      await until(() => closed, 'the follower to be dropped');
    } finally {
      socket.destroy();
      await small.close();
    }
  });
});

/** An event stream read to wherever it stops: its text, and whether it ended properly or was cut. */
function readToCut(url: string, headers: Record<string, string> = {}): Promise<{ ids: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { authorization: `Bearer ${KEY}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('error', () => {});
      res.on('close', () =>
        resolve({ ids: text.split('\n').filter((l) => l.startsWith('id: ')).length, complete: res.complete }),
      );
    }).on('error', reject);
  });
}

describe('a fault that cuts the event stream after N events (fault add --cut-after)', () => {
  const cut = (target: TestSandbox, n: number) =>
    target.call('POST', '/_sandbox/faults', { route: 'GET /v1/runs/{run}/events', cut_after: n, times: 1 });

  it('a replayed stream (an ended run) carries exactly N events, then the connection drops', async () => {
    const run = await driveToEnd(sb, (await sb.createRun('A kite forecast')).id);
    expect((await cut(sb, 3)).status).toBe(201);
    expect(await readToCut(`${sb.url}/v1/runs/${run.id}/events`)).toEqual({ ids: 3, complete: false });
  });

  it('a live stream carries exactly N events, the last batch before the cut included, then drops', async () => {
    const clock = new FakeClock();
    const live = await startTestSandbox({ clock });
    try {
      const run = await live.createRun('A tide table');
      const before = live.service.eventsOf(run.id).length;
      await cut(live, before + 3);
      const reading = readToCut(`${live.url}/v1/runs/${run.id}/events`);
      await until(() => live.openStreams() === 1, 'the stream to open');
      let done = false;
      void reading.then(() => (done = true));
      await until(() => {
        clock.advance(50);
        return done;
      }, 'the stream to be cut');
      expect(await reading).toEqual({ ids: before + 3, complete: false });
    } finally {
      await live.close();
    }
  });
});
