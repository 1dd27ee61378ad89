// The hand-written checks of contract/shapes.ts take the common answers without loading zod (`orc run get`,
// `orc watch`, every error): each must say yes exactly where its schema does, on every input.
import { expect, it } from 'vitest';
import { Artifact, ArtifactManifest, ErrorEnvelope, Event, Run, pageOf } from '../../src/contract/schemas.js';
import {
  errorEnvelope,
  isArtifact,
  isArtifactManifest,
  isPageOf,
  isPlainEvent,
  isRun,
} from '../../src/contract/shapes.js';

const values = ['s', '', 3, 0, true, null, [], {}, ['x'], { a: 1 }, undefined];
let seed = 7;
const pick = <T>(xs: readonly T[]): T => xs[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % xs.length]!;
/** `base` with some fields changed to (or dropped for) values of every kind, as JSON would carry them. */
function mutate(base: Record<string, unknown>, keys: string[]): unknown {
  const out: Record<string, unknown> = { ...base };
  for (let k = 0; k < 1 + (seed % 3); k++) {
    const key = pick(keys);
    const v = pick(values);
    if (v === undefined) delete out[key];
    else out[key] = v;
  }
  return JSON.parse(JSON.stringify(out));
}

const run = {
  id: 'run_1',
  mode: 'idea',
  status: 'running',
  stage: '01_intake',
  gate_pending: null,
  app_id: null,
  created_at: '2026-11-24T10:00:00Z',
  updated_at: '2026-11-24T10:00:01Z',
  extra: 1,
};

it('isRun says yes exactly where the Run schema does', () => {
  expect(isRun(run)).toBe(true);
  for (let i = 0; i < 4000; i++) {
    const json = mutate(run, [...Object.keys(run), 'other']);
    expect(isRun(json), JSON.stringify(json)).toBe(Run.safeParse(json).success);
  }
  for (const v of values) expect(isRun(v)).toBe(Run.safeParse(v).success);
});

it('a page of runs: the same answers as pageOf(Run)', () => {
  const page = { data: [run, run], next_cursor: 'c', has_more: true };
  const check = isPageOf(isRun);
  const schema = pageOf(Run);
  expect(check(page)).toBe(true);
  for (let i = 0; i < 2000; i++) {
    const json = mutate({ ...page, data: pick([[run], [], [run, mutate(run, Object.keys(run))], 'x', null]) }, [
      'data',
      'next_cursor',
      'has_more',
    ]);
    expect(check(json), JSON.stringify(json)).toBe(schema.safeParse(json).success);
  }
});

it('errorEnvelope reads exactly the envelopes the schema takes, with the same fields', () => {
  const error = {
    type: 'invalid_request_error',
    code: 'run_not_found',
    message: 'no run',
    field: 'id',
    request_id: 'req_1',
  };
  for (let i = 0; i < 3000; i++) {
    const json = pick([
      mutate({ error: mutate(error, Object.keys(error)) }, ['error', 'other']),
      mutate(error, Object.keys(error)),
    ]);
    const parsed = ErrorEnvelope.safeParse(json);
    const fast = errorEnvelope(json);
    expect(fast !== null, JSON.stringify(json)).toBe(parsed.success);
    if (parsed.success) {
      const { type, code, message, field } = parsed.data.error;
      expect(fast).toEqual({ type, code, message, ...(field === undefined ? {} : { field }) });
    }
  }
});

it('a plain event passes the Event schema as it is (the rest go to the schema)', () => {
  const event = {
    id: 'evt_1',
    type: 'log',
    created_at: '2026-11-24T10:00:00Z',
    run_id: 'run_1',
    data: { stage: '01_intake', level: 'info', message: 'hi' },
  };
  for (let i = 0; i < 3000; i++) {
    const json = mutate(
      { ...event, data: mutate(event.data, ['stage', 'percent', 'passed', 'notes', 'score', 'error', 'other']) },
      Object.keys(event),
    );
    if (isPlainEvent(json)) expect(Event.safeParse(json)).toMatchObject({ success: true, data: json });
  }
  // a decision's notes, or none: still the quick path
  for (const notes of ['Warmer palette', null])
    expect(
      isPlainEvent({ ...event, type: 'run.gate_resolved', data: { gate: 'brand', decision: 'approved', notes } }),
    ).toBe(true);
});

it('the artifact manifest and one kind: the same answers as their schemas', () => {
  const entry = {
    kind: 'ipa',
    status: 'ready',
    content_type: 'application/octet-stream',
    size: 10,
    sha256: 'ab',
    files: 1,
    updated_at: '2026-11-24T10:00:00Z',
  };
  const file = {
    name: 'A.ipa',
    content_type: 'application/octet-stream',
    size: 10,
    sha256: 'ab',
    url: 'http://127.0.0.1/f',
    expires_at: '2026-11-24T10:05:00Z',
  };
  for (let i = 0; i < 3000; i++) {
    const manifest = mutate({ data: pick([[entry], [mutate(entry, Object.keys(entry))], [], 'x']) }, ['data', 'other']);
    expect(isArtifactManifest(manifest), JSON.stringify(manifest)).toBe(ArtifactManifest.safeParse(manifest).success);
    const kind = mutate(
      {
        kind: 'ipa',
        files: pick([[file], [mutate(file, Object.keys(file))], [], null]),
        content_type: 'application/json',
        content: { a: 1 },
      },
      ['kind', 'files', 'content_type', 'content'],
    );
    expect(isArtifact(kind), JSON.stringify(kind)).toBe(Artifact.safeParse(kind).success);
  }
});
