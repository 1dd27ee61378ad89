// The terminal renderer: redraws capped at ~20 a second however fast events come, server text sanitised,
// lines fitted to the width, the cursor given back.
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Event } from '../../../src/contract/schemas.js';
import { IO } from '../../../src/ui/io.js';
import { parseServiceJson } from '../../../src/lib/sanitize.js';
import { loadStyle } from '../../../src/ui/style.js';
import { TtyRenderer } from '../../../src/ui/watch/tty.js';

/** An event as the engine hands it over: read from the service's JSON through the boundary that sanitises it. */
const ev = (type: string, data: Record<string, unknown>, at = '2026-11-22T10:00:00.000Z'): Event =>
  parseServiceJson(JSON.stringify({ id: 'evt_x', type, created_at: at, run_id: 'run_x', data })) as Event;

async function renderer() {
  const out = Object.assign(new PassThrough(), { isTTY: true, columns: 60 });
  const err = Object.assign(new PassThrough(), { isTTY: true });
  let written = '';
  out.on('data', (c) => (written += String(c)));
  const io = new IO(
    { stdin: Object.assign(new PassThrough(), { isTTY: true }), stdout: out, stderr: err },
    { json: false, noInput: false, env: {} },
  );
  const r = new TtyRenderer(io, await loadStyle(io), () => Date.parse('2026-11-22T10:00:05.000Z'));
  return { r, output: () => written };
}

describe('TtyRenderer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('draws at most about 20 frames a second under a flood of events', async () => {
    const { r } = await renderer();
    r.handle({ kind: 'event', seq: 1, event: ev('run.stage_changed', { stage: '05_build', percent: 0 }) });
    const drawnBefore = r.stats.frames;
    for (let i = 0; i < 20_000; i++) {
      r.handle({
        kind: 'log',
        seq: i + 2,
        event: ev('log', { stage: '05_build', level: 'info', message: `line ${i}` }),
      });
      if (i % 20 === 0) vi.advanceTimersByTime(1); // 20,000 events over one second
    }
    vi.advanceTimersByTime(100);
    expect(r.stats.events).toBe(20_001);
    expect(r.stats.frames - drawnBefore).toBeLessThanOrEqual(22);
    expect(r.stats.frames - drawnBefore).toBeGreaterThanOrEqual(15);
    r.finish();
  });

  it('keeps finished stages, warnings and the outcome; fits lines; strips escapes; shows the cursor again', async () => {
    const { r, output } = await renderer();
    r.handle({
      kind: 'event',
      seq: 1,
      event: ev('run.stage_changed', { stage: '01_intake', percent: 0 }, '2026-11-22T10:00:00.000Z'),
    });
    r.handle({
      kind: 'log',
      seq: 2,
      event: ev('log', { stage: '01_intake', level: 'warn', message: 'careful \u001b]0;pwned\u0007now' }),
    });
    r.handle({
      kind: 'event',
      seq: 3,
      event: ev('run.stage_changed', { stage: '02_concept', percent: 0 }, '2026-11-22T10:00:04.000Z'),
    });
    r.handle({
      kind: 'log',
      seq: 4,
      event: ev('log', { stage: '02_concept', level: 'info', message: 'x'.repeat(200) }),
    });
    vi.advanceTimersByTime(100);
    r.handle({
      kind: 'event',
      seq: 5,
      event: ev(
        'run.failed',
        { stage: '02_concept', error: { code: 'boom', message: 'it broke' } },
        '2026-11-22T10:00:05.000Z',
      ),
    });
    r.finish();
    const raw = output();
    expect(raw).not.toContain('\u001b]'); // the server's OSC never reaches the terminal
    const text = raw.replace(/\u001b\[[0-9;]*m/g, ''); // our own colours aside
    expect(text).toContain('✓ 01_intake  4.0s');
    expect(text).toContain('✗ 02_concept  1.0s');
    expect(text).toContain('failed at 02_concept: boom: it broke');
    expect(text).toContain('! 01_intake  careful now');
    expect(text).not.toContain('pwned');
    expect(raw).not.toContain('\u0007');
    const visible = text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\n');
    for (const line of visible) expect([...line].length).toBeLessThanOrEqual(60);
    expect(raw.lastIndexOf('\u001b[?25h')).toBeGreaterThan(raw.lastIndexOf('\u001b[?25l'));
  });
});

describe('TtyRenderer, where a gate opens and what stays', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ticks the stage a gate follows before drawing the gate; a rejection is "back to" it', async () => {
    const { r, output } = await renderer();
    r.handle({
      kind: 'event',
      seq: 1,
      event: ev('run.stage_changed', { stage: '01_intake', percent: 0 }, '2026-11-22T10:00:00.000Z'),
    });
    r.handle({
      kind: 'event',
      seq: 2,
      event: ev('run.stage_changed', { stage: '02_concept', percent: 0 }, '2026-11-22T10:00:01.000Z'),
    });
    r.handle({
      kind: 'event',
      seq: 3,
      event: ev('run.stage_changed', { stage: '02_concept', percent: 100 }, '2026-11-22T10:00:03.000Z'),
    });
    r.handle({ kind: 'event', seq: 4, event: ev('run.gate_pending', { gate: 'idea' }, '2026-11-22T10:00:03.000Z') });
    r.handle({
      kind: 'event',
      seq: 5,
      event: ev('run.gate_resolved', { gate: 'idea', decision: 'rejected' }, '2026-11-22T10:00:04.000Z'),
    });
    r.handle({
      kind: 'event',
      seq: 6,
      event: ev('run.stage_changed', { stage: '02_concept', percent: 0 }, '2026-11-22T10:00:04.000Z'),
    });
    r.finish();
    const text = output().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    const concept = text.indexOf('✓ 02_concept  2.0s');
    const gate = text.indexOf('◆');
    expect(concept).toBeGreaterThan(text.indexOf('✓ 01_intake'));
    expect(gate).toBeGreaterThan(concept); // the gate after its stage, not after 01_intake
    expect(text).toContain('↺ back to 02_concept');
  });

  it('ticks the scoring stage before its scorecard, and draws that scorecard once', async () => {
    const { r, output } = await renderer();
    r.handle({
      kind: 'event',
      seq: 1,
      event: ev('run.stage_changed', { stage: '07_scoring', percent: 0 }, '2026-11-22T10:00:00.000Z'),
    });
    r.handle({
      kind: 'event',
      seq: 2,
      event: ev(
        'run.scored',
        { score: { beauty: 80, harmony: 70, score: 75, total: 100 }, passed: true },
        '2026-11-22T10:00:00.000Z',
      ),
    });
    r.handle({
      kind: 'event',
      seq: 3,
      event: ev('run.stage_changed', { stage: '07_scoring', percent: 100 }, '2026-11-22T10:00:02.000Z'),
    });
    r.handle({ kind: 'event', seq: 4, event: ev('run.gate_pending', { gate: 'final' }, '2026-11-22T10:00:02.000Z') });
    r.finish();
    const text = output().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(text.indexOf('✓ 07_scoring')).toBeGreaterThan(-1);
    expect(text.indexOf('Scorecard')).toBeGreaterThan(text.indexOf('✓ 07_scoring'));
    expect(text.split('Scorecard').length - 1).toBe(1);
  });

  it('a warning said again after a rework is kept once', async () => {
    const { r, output } = await renderer();
    const warn = (seq: number) =>
      r.handle({
        kind: 'log',
        seq,
        event: ev('log', { stage: '05_build', level: 'warn', message: 'keyWindow was deprecated' }),
      });
    r.handle({ kind: 'event', seq: 1, event: ev('run.stage_changed', { stage: '05_build', percent: 0 }) });
    warn(2);
    r.handle({ kind: 'event', seq: 3, event: ev('run.stage_changed', { stage: '06_test', percent: 0 }) });
    r.handle({ kind: 'event', seq: 4, event: ev('run.stage_changed', { stage: '05_build', percent: 0 }) }); // back to it
    warn(5);
    r.handle({ kind: 'event', seq: 6, event: ev('run.accepted', { app_id: 'app_1' }) });
    r.finish();
    const after = output().slice(output().lastIndexOf('\u001b[?25h')); // what stays after the run
    expect(after.split('keyWindow was deprecated').length - 1).toBe(1);
  });

  it('leaves the build error whole after the run, however narrow the terminal', async () => {
    const { r, output } = await renderer();
    const error = `error: Command SwiftCompile failed with a nonzero exit code (AppDelegate.swift:42: cannot find 'Analytics' in scope)`;
    r.handle({ kind: 'event', seq: 1, event: ev('run.stage_changed', { stage: '05_build', percent: 0 }) });
    r.handle({ kind: 'log', seq: 2, event: ev('log', { stage: '05_build', level: 'error', message: error }) });
    r.handle({
      kind: 'event',
      seq: 3,
      event: ev('run.failed', { stage: '05_build', error: { code: 'build_failed', message: 'x' } }),
    });
    r.finish();
    const text = output().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(text).toContain(`✗ 05_build  ${error}`);
  });
});
