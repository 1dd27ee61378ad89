// A command started with TRACEPARENT (and TRACESTATE) in its environment sends them as the W3C headers on
// its requests, and the sandbox's request log shows the trace id; a malformed one is not sent, and --debug
// says why. orc in process against a sandbox on a manual clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { runOrc } from '../helpers/run.js';
import { until } from '../helpers/until.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

let sb: TestSandbox;
let run: string;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  run = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
});
afterAll(() => sb.stop());

const orc = (args: string[], env: Record<string, string> = {}) =>
  runOrc(args, { env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey, ...env } });
const sent = (stderr: string, header: string) =>
  stderr
    .split('\n')
    .filter((l) => l.includes(`> ${header}:`))
    .map((l) => l.slice(l.indexOf(`> ${header}:`) + header.length + 3).trim());

describe('TRACEPARENT from the environment', () => {
  it('is sent with TRACESTATE on the command’s request, and the sandbox log line carries its trace id', async () => {
    const got = await orc(['run', 'get', run, '--debug'], { TRACEPARENT: PARENT, TRACESTATE: 'vendor=abc' });
    expect(got.exitCode, got.stderr).toBe(0);
    const parents = sent(got.stderr, 'traceparent');
    expect(parents.length).toBeGreaterThan(0);
    expect(parents).toEqual(parents.map(() => PARENT));
    expect(sent(got.stderr, 'tracestate')).toEqual(parents.map(() => 'vendor=abc'));
    // (the sandbox journals a request once its answer is closed, which may follow the client's read)
    const line = await until(async () => {
      const logs = await orc(['sandbox', 'logs']);
      return logs.stdout.split('\n').find((l) => l.includes(`GET /v1/runs/${run} `) && l.includes(TRACE));
    }, 'the request in `orc sandbox logs`');
    expect(line).toContain(`trace ${TRACE}`);
  });

  it.each([
    ['not the W3C form', 'abc'],
    ['uppercase hex', PARENT.toUpperCase()],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff, which is never valid', `ff-${TRACE}-00f067aa0ba902b7-01`],
    ['a later version with a fifth field not after a dash', `01-${TRACE}-00f067aa0ba902b7-01x`],
  ])('is not sent when malformed (%s), and --debug says why', async (_why, value) => {
    const got = await orc(['run', 'get', run, '--debug'], { TRACEPARENT: value, TRACESTATE: 'vendor=abc' });
    expect(got.exitCode, got.stderr).toBe(0);
    expect(sent(got.stderr, 'traceparent')).toEqual([]);
    expect(sent(got.stderr, 'tracestate')).toEqual([]);
    expect(got.stderr).toContain(`traceparent ${JSON.stringify(value)} not sent`);
  });

  it.each([
    ['a later version', `01-${TRACE}-00f067aa0ba902b7-01`],
    ['a later version with more fields', `cc-${TRACE}-00f067aa0ba902b7-01-what-comes-later`],
    ['a later version with flags 00 does not know', `02-${TRACE}-00f067aa0ba902b7-ff`],
  ])('of %s is read by its first four fields and sent as version 00 (sampled kept)', async (_why, value) => {
    const got = await orc(['run', 'get', run, '--debug'], { TRACEPARENT: value });
    expect(got.exitCode, got.stderr).toBe(0);
    const parents = sent(got.stderr, 'traceparent');
    expect(parents.length).toBeGreaterThan(0);
    expect(new Set(parents)).toEqual(new Set([PARENT]));
  });

  it('is documented where a user looks for variables: orc help environment', async () => {
    const help = await orc(['help', 'environment']);
    expect(help.exitCode, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/TRACEPARENT\s+a W3C traceparent/);
    expect(help.stdout).toContain('TRACESTATE');
  });
});
