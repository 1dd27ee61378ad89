// readEvent takes most events by a hand-written check of the schema's plain fields (a stream of thousands
// of log lines need not go through zod one by one): it must agree with the schema on every input.
import { expect, it } from 'vitest';
import { Event, readEvent } from '../../src/contract/schemas.js';

it('agrees with the Event schema: the same events kept, with the same content, the same ones refused', () => {
  const values = ['s', 3, true, null, [], {}, { code: 'x', message: 'y' }, { total: 80, passed: true }, undefined];
  const keys = ['stage', 'percent', 'gate', 'passed', 'message', 'level', 'score', 'error', 'extra', '__proto__'];
  let seed = 11;
  const pick = <T>(xs: T[]): T => xs[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % xs.length]!;
  for (let i = 0; i < 3000; i++) {
    const data: Record<string, unknown> = {};
    for (let k = 0; k < 3; k++) {
      const key = pick(keys);
      const v = pick(values);
      if (v !== undefined)
        Object.defineProperty(data, key, { value: v, enumerable: true, writable: true, configurable: true });
    }
    const envelope = JSON.parse(
      JSON.stringify({
        id: pick(['evt_1', 7]),
        type: 'log',
        created_at: pick(['2026-11-24T10:00:00Z', null]),
        run_id: 'run_1',
        data: pick([data, data, null]),
      }),
    );
    const fast = readEvent(envelope);
    const schema = Event.safeParse(envelope);
    if (schema.success) expect(fast).toEqual(schema.data);
    // What the schema refuses, readEvent drops or repairs (a bad data field removed), never passes as it is.
    else if (fast) expect(Event.safeParse(fast).success).toBe(true);
  }
});
