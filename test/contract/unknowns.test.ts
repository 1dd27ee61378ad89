// unknownsOf tells each thing a tolerant read shape let pass without knowing it, and nothing it knows.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { Artifact, ErrorEnvelope, Event, Gate, Run, Scorecard, pageOf } from '../../src/contract/schemas.js';
import { unknownErrorCode, unknownEventKind, unknownStage, unknownsOf } from '../../src/contract/unknowns.js';

const run = {
  id: 'run_1',
  mode: 'idea',
  status: 'running',
  stage: '03_brand',
  gate_pending: null,
  app_id: null,
  created_at: '2026-01-01T00:00:00Z',
};
const event = { id: '1', type: 'run.stage_changed', created_at: 't', run_id: 'run_1', data: { stage: '02_concept' } };

describe('unknownsOf', () => {
  it('finds nothing in values exactly as the contract knows them', () => {
    expect(unknownsOf(Run, run)).toEqual([]);
    expect(unknownsOf(Run, { ...run, updated_at: 't', status: 'awaiting_approval', gate_pending: 'brand' })).toEqual(
      [],
    );
    expect(unknownsOf(pageOf(Run), { data: [run, run], next_cursor: null, has_more: false })).toEqual([]);
    expect(unknownsOf(Event, event)).toEqual([]);
    expect(unknownsOf(Event, { ...event, type: 'log', data: { level: 'info', message: 'hi' } })).toEqual([]);
    const envelope = { error: { type: 'not_found_error', code: 'run_not_found', message: 'no' } };
    expect(unknownsOf(ErrorEnvelope, envelope)).toEqual([]);
  });

  it('tells a field a loose object does not name, and a knownOr string outside its values, with the value', () => {
    expect(unknownsOf(Run, { ...run, colour: 'blue', status: 'paused' })).toEqual([
      { kind: 'value', path: 'status', value: 'paused' },
      { kind: 'field', path: 'colour' },
    ]);
  });

  it('tells a stage, an event kind and an error code outside their tables', () => {
    expect(unknownsOf(Run, { ...run, stage: '10_launch' })).toEqual([
      { kind: 'value', path: 'stage', value: '10_launch' },
    ]);
    expect(unknownsOf(Event, { ...event, type: 'run.paused', data: { stage: '00_x', mood: 1 } })).toEqual([
      { kind: 'value', path: 'type', value: 'run.paused' },
      { kind: 'value', path: 'data.stage', value: '00_x' },
      { kind: 'field', path: 'data.mood' },
    ]);
    const envelope = { error: { type: 'teapot_error', code: 'too_hot', message: 'no' }, hint: 'x' };
    expect(unknownsOf(ErrorEnvelope, envelope)).toEqual([
      { kind: 'value', path: 'error.type', value: 'teapot_error' },
      { kind: 'value', path: 'error.code', value: 'too_hot' },
      { kind: 'field', path: 'hint' },
    ]);
  });

  it('walks nested objects and lists, lists as [], each path, kind and value once', () => {
    const page = {
      data: [
        { ...run, colour: 1, status: 'paused' },
        { ...run, colour: 2, status: 'paused' },
        { ...run, status: 'sleeping' },
      ],
      next_cursor: null,
      has_more: false,
      total: 3,
    };
    expect(unknownsOf(pageOf(Run), page)).toEqual([
      { kind: 'value', path: 'data[].status', value: 'paused' },
      { kind: 'field', path: 'data[].colour' },
      { kind: 'value', path: 'data[].status', value: 'sleeping' },
      { kind: 'field', path: 'total' },
    ]);
    const gate = { name: 'brand', state: 'pending', decided_at: null, notes: null };
    const history = [{ decision: 'deferred', notes: null, decided_at: 't', by: 'me' }];
    expect(unknownsOf(Gate, { ...gate, history })).toEqual([
      { kind: 'value', path: 'history[].decision', value: 'deferred' },
      { kind: 'field', path: 'history[].by' },
    ]);
    const card = {
      score: { beauty: 1, harmony: 1, score: 1, total: 1, bonus: 2 },
      passed: true,
      preflight: { passed: true, checks: [{ id: 'a', title: 'A', status: 'maybe' }] },
    };
    expect(unknownsOf(Scorecard, card)).toEqual([
      { kind: 'field', path: 'score.bonus' },
      { kind: 'value', path: 'preflight.checks[].status', value: 'maybe' },
    ]);
  });

  it("reads a union's value as the option that takes it; a strict object has no unknown field", () => {
    const files = {
      kind: 'ipa',
      files: [{ name: 'a', content_type: 'x', size: 1, sha256: 'h', url: 'u', expires_at: 't', mtime: 1 }],
    };
    expect(unknownsOf(Artifact, files)).toEqual([{ kind: 'field', path: 'files[].mtime' }]);
    expect(unknownsOf(z.strictObject({ a: z.string() }), { a: 'x' })).toEqual([]);
    expect(unknownsOf(z.object({ a: z.string() }), { a: 'x', b: 1 })).toEqual([{ kind: 'field', path: 'b' }]);
  });

  it('the table helpers: null for what the contract knows', () => {
    expect(unknownEventKind('run.created')).toBeNull();
    expect(unknownEventKind('log')).toBeNull();
    expect(unknownEventKind('run.paused')).toEqual({ kind: 'value', path: 'type', value: 'run.paused' });
    expect(unknownStage('09_review')).toBeNull();
    expect(unknownStage('10_launch', 'run.stage')).toEqual({ kind: 'value', path: 'run.stage', value: '10_launch' });
    expect(unknownErrorCode('rate_limited')).toBeNull();
    expect(unknownErrorCode('too_hot')).toEqual({ kind: 'value', path: 'error.code', value: 'too_hot' });
  });
});
