// Pieces of the sandbox with exact answers: merge patch, Range, PNG and zip structure, magic words, the journal,
// deliveries kept on disk.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { completeIpa, ipaBytes, ipaLayout, ipaSha256, parseRange, type IpaLayout } from '../../src/sandbox/files.js';
import { magicWords, nameFromText } from '../../src/sandbox/generate.js';
import { applyMergePatch as mergePatch } from '../../src/lib/merge-patch.js';
import { compareStages } from '../../src/contract/events.js';
import { Journal } from '../../src/sandbox/control.js';
import { ManualClock } from '../../src/sandbox/manual-clock.js';
import { deliveryId, Store, type DeliveryRecord, type StoredEvent } from '../../src/sandbox/store.js';

describe('JSON merge patch (RFC 7396 appendix A)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, out) => {
    expect(mergePatch(target, patch)).toEqual(out);
  });
});

describe('Range', () => {
  it.each([
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-500', 100, { start: 0, end: 99 }],
    ['bytes=50-500', 100, { start: 50, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=9-3', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-1,5-6', 100, null],
    ['items=0-1', 100, null],
    [undefined, 100, null],
  ])('%s of %i bytes', (header, size, out) => {
    expect(parseRange(header, size)).toEqual(out);
  });
});

describe('binary artifacts', () => {
  it('builds an ipa whose zip central directory lists the app bundle, any range of it on demand', async () => {
    const whole = async (layout: IpaLayout, start?: number, end?: number) => {
      const parts: Buffer[] = [];
      for await (const p of ipaBytes(layout, start, end)) parts.push(p);
      return Buffer.concat(parts);
    };
    const layout = await completeIpa(ipaLayout({ name: 'Trail Log', bundle_id: 'com.example.traillog' }, 'unit', 3));
    const bytes = await whole(layout);
    expect(bytes.length).toBe(layout.size);
    expect(layout.size).toBeGreaterThan(3 * 1024 * 1024);
    const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    expect(eocd).toBe(bytes.length - 22);
    expect(bytes.readUInt16LE(eocd + 10)).toBe(3);
    const cd = bytes.subarray(bytes.readUInt32LE(eocd + 16), eocd).toString('latin1');
    expect(cd).toContain('Payload/TrailLog.app/Info.plist');
    expect(cd).toContain('Payload/TrailLog.app/TrailLog');
    // each entry's CRC in its header is the CRC of its bytes
    let at = 0;
    for (let i = 0; i < 3; i++) {
      const nameLen = bytes.readUInt16LE(at + 26);
      const size = bytes.readUInt32LE(at + 18);
      const data = bytes.subarray(at + 30 + nameLen, at + 30 + nameLen + size);
      expect(bytes.readUInt32LE(at + 14)).toBe(crc32(data) >>> 0);
      at += 30 + nameLen + size;
    }
    // a range from the middle is the same bytes as the whole file there
    const from = 1_234_567;
    expect((await whole(layout, from, from + 99_999)).equals(bytes.subarray(from, from + 100_000))).toBe(true);
    // the same inputs give the same bytes; another run's label gives other bytes
    expect(await ipaSha256(layout)).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(
      await ipaSha256(
        await completeIpa(ipaLayout({ name: 'Trail Log', bundle_id: 'com.example.traillog' }, 'other', 3)),
      ),
    ).not.toBe(await ipaSha256(layout));
  });
});

describe('generated content', () => {
  it('reads magic words anywhere, in any case', () => {
    expect(magicWords('An app #FAIL now')).toEqual({ fail: true, reject: false, lowscore: false });
    expect(magicWords('#reject and #lowscore')).toEqual({ fail: false, reject: true, lowscore: true });
  });

  it('names apps from the pitch without magic words', () => {
    expect(nameFromText('A habit tracker for runners #fail')).toBe('Habit Tracker');
    expect(nameFromText('!!!')).toBe('Untitled App');
  });

  it('orders stages by their number, whatever their names', () => {
    expect(['10_extra', '02_concept', '09_review', '01_intake'].sort(compareStages)).toEqual([
      '01_intake',
      '02_concept',
      '09_review',
      '10_extra',
    ]);
  });
});

describe('the request journal', () => {
  const request = (n: number) => ({
    type: 'request' as const,
    at: Date.UTC(2026, 0, 1, 0, 0, n),
    method: 'GET',
    path: `/v1/runs/run_${n}`,
    status: 200,
    ms: 1,
    request_id: `req_${n}`,
    idempotency_key: null,
    trace_id: null,
    fault: null,
  });

  it('keeps the last `size` entries in order, numbered from the start, their times in ISO 8601', () => {
    const j = new Journal(3);
    for (let n = 1; n <= 7; n++) j.add(request(n));
    expect(j.since(0).map((e) => [e.seq, (e as { path: string }).path, e.at])).toEqual([
      [5, '/v1/runs/run_5', '2026-01-01T00:00:05.000Z'],
      [6, '/v1/runs/run_6', '2026-01-01T00:00:06.000Z'],
      [7, '/v1/runs/run_7', '2026-01-01T00:00:07.000Z'],
    ]);
    expect(j.since(5).map((e) => e.seq)).toEqual([6, 7]);
    expect(j.since(0, 1).map((e) => e.seq)).toEqual([5]);
    expect(j.since(7)).toEqual([]);
  });

  it('tells followers of each new entry; a journal of size 0 keeps and tells nothing', () => {
    const j = new Journal(2);
    const told: number[] = [];
    const stop = j.follow((e) => told.push(e.seq));
    j.add(request(1));
    stop();
    j.add(request(2));
    expect(told).toEqual([1]);
    const none = new Journal(0);
    none.follow(() => told.push(-1));
    none.add(request(1));
    expect(none.since(0)).toEqual([]);
    expect(told).toEqual([1]);
  });
});

describe('deliveries on disk', () => {
  const delivery = (over: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
    seq: 1,
    id: 'dlv_1',
    webhook_id: 'wh_1',
    event_id: 'evt_1',
    event_type: 'run.created',
    body: '{"id":"evt_1","type":"run.created","data":{"note":"a \\"quoted\\" word"}}',
    status: 'pending',
    attempts: 0,
    max_attempts: 8,
    last_status_code: null,
    next_attempt_at: '2026-11-24T00:00:00.000Z',
    created_at: '2026-11-24T00:00:00.000Z',
    ...over,
  });

  it('keep the body posted and the latest attempt across a restart; a record written by an older orc reads the same', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'orc-store-')), 'sandbox.db');
    const first = await Store.open(path);
    first.saveDelivery(delivery());
    first.saveDelivery(delivery({ attempts: 1, last_status_code: 500, next_attempt_at: '2026-11-24T00:00:01.000Z' }));
    // an older orc kept the body inside the record, and no event column
    const old = delivery({
      seq: 2,
      id: 'dlv_2',
      body: '{"id":"evt_2"}',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
    });
    (first as unknown as { db: { prepare(sql: string): { run(...a: unknown[]): void } } }).db
      .prepare('INSERT INTO deliveries (seq, id, body) VALUES (?, ?, ?)')
      .run(2, 'dlv_2', JSON.stringify(old));
    first.close();
    const again = await Store.open(path);
    expect(again.delivery('dlv_1')).toEqual(
      delivery({ attempts: 1, last_status_code: 500, next_attempt_at: '2026-11-24T00:00:01.000Z' }),
    );
    expect(again.delivery('dlv_2')).toEqual(old);
    again.close();
  });

  type Raw = {
    db: { prepare(sql: string): { run(...a: unknown[]): void; get(...a: unknown[]): Record<string, unknown> } };
  };

  it("read a delivery's body from its event's row (never written twice), and an older orc's bodies the same", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'orc-store-')), 'sandbox.db');
    const first = await Store.open(path);
    const ev: StoredEvent = { seq: 1, type: 'run.created', json: delivery().body };
    first.appendEvent('run_1', ev);
    const ids = [1, 2, 3].map((n) => deliveryId(n, 'x'.repeat(20)));
    first.transaction(() => {
      for (let n = 1; n <= 3; n++)
        first.saveDelivery(delivery({ seq: n, id: ids[n - 1]!, webhook_id: `wh_${n}`, event_pos: ev.pos! }));
    });
    const raw = (first as unknown as Raw).db;
    expect(
      raw.prepare("SELECT count(*) AS n FROM deliveries WHERE event IS NOT NULL OR body LIKE '%note%'").get().n,
    ).toBe(0);
    expect(raw.prepare('SELECT count(*) AS n FROM delivery_events').get().n).toBe(0);
    // two orcs before this one: the body in the delivery's own event column, or in a table of bodies
    const before = delivery({ seq: 4, id: 'dlv_4', event_id: 'evt_4', body: '{"id":"evt_4"}' });
    const { body: beforeBody, ...beforeRecord } = before;
    raw
      .prepare('INSERT INTO deliveries (seq, id, body, event) VALUES (?, ?, ?, ?)')
      .run(4, 'dlv_4', JSON.stringify(beforeRecord), beforeBody);
    const apart = delivery({ seq: 5, id: 'dlv_5', event_id: 'evt_5', body: '{"id":"evt_5"}' });
    const { body: apartBody, ...apartRecord } = apart;
    raw
      .prepare('INSERT INTO deliveries (seq, id, body, event_id) VALUES (?, ?, ?, ?)')
      .run(5, 'dlv_5', JSON.stringify(apartRecord), 'evt_5');
    raw.prepare('INSERT INTO delivery_events (id, body) VALUES (?, ?)').run('evt_5', apartBody);
    first.close();
    const again = await Store.open(path);
    for (let n = 1; n <= 3; n++) expect(again.delivery(ids[n - 1]!)?.body).toBe(delivery().body);
    expect(again.delivery('dlv_4')).toEqual(before);
    expect(again.delivery('dlv_5')).toEqual(apart);
    // the dispatcher's lists at start: every delivery kept, with its webhook, oldest first
    expect([...again.deliveryPlaces()].map((p) => p.webhook_id)).toEqual(['wh_1', 'wh_2', 'wh_3', 'wh_1', 'wh_1']);
    again.close();
  });

  it('keep nothing of a delivery whose transaction was rolled back', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'orc-store-')), 'sandbox.db');
    const first = await Store.open(path);
    first.failWrite = (op) => op === 'putWebhook';
    expect(() =>
      first.transaction(() => {
        first.saveDelivery(delivery());
        first.saveWebhook({ seq: 9, id: 'wh_9' } as never);
      }),
    ).toThrow(/injected failure/);
    first.failWrite = null;
    expect(first.liveDeliveries()).toEqual([]);
    first.saveDelivery(delivery({ seq: 2, id: 'dlv_2', webhook_id: 'wh_2' }));
    first.close();
    const again = await Store.open(path);
    expect(again.delivery('dlv_2')?.body).toBe(delivery().body);
    expect(again.delivery('dlv_1')).toBeUndefined();
    again.close();
  });
});

describe('the manual clock', () => {
  it('never leaves the range a date can hold: a move past the year 9999 stops at its last moment', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    let fired = 0;
    clock.timer(1e308, () => fired++);
    clock.advanceTo(1e308);
    expect(new Date(clock.now()).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(fired).toBe(0);
  });
});
