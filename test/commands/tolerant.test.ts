// The tolerant reader tells (issue 38): with --debug or ORC_TELL_UNKNOWN, what the service sent that orc does
// not know and let pass is listed on stderr once per command; without them, nothing. A proxy in front of an
// in-process sandbox adds a field, a status, a stage, an event kind and an error code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { runOrc } from '../helpers/run.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;
const TOLD = 'the service sent what orc does not know (it let it pass)';

let sb: TestSandbox;
let proxy: FaultProxy;
let ended: string;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  ended = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run: ended, to: 'end' });
  proxy = await startFaultProxy(sb.url);
});
afterAll(async () => {
  await proxy.close();
  await sb.stop();
});

const orc = (args: string[], env: Record<string, string> = {}) =>
  runOrc(args, { env: { ORC_BASE_URL: proxy.url, ORC_API_KEY: sb.apiKey, ...env } });
const toldLines = (stderr: string) => stderr.split('\n').filter((l) => l.includes(TOLD));

/** Runs get a field and a status orc does not know. */
const oddRuns = () => {
  proxy.plan = (req) =>
    req.method === 'GET' && /^\/v1\/runs(\/run_[^/?]*)?(\?|$)/.test(req.url)
      ? {
          kind: 'rewrite',
          rewrite: (body) => body.replaceAll('"status":"accepted"', '"status":"paused","colour":"blue"'),
        }
      : { kind: 'pass' };
};

describe('the tolerant reader tells what it let pass', () => {
  it('orc run get --debug lists an unknown field and status once, on stderr; stdout keeps the data', async () => {
    oddRuns();
    const r = await orc(['run', 'get', ended, '--debug']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(toldLines(r.stderr)).toEqual([
      `warning: ${TOLD}: GET /v1/runs/${ended} status "paused" (a value); colour (a field)`,
    ]);
    expect(r.stdout).not.toContain(TOLD);
  });

  it('without --debug or ORC_TELL_UNKNOWN nothing is told; ORC_TELL_UNKNOWN=1 tells without the exchange', async () => {
    oddRuns();
    const quiet = await orc(['run', 'get', ended]);
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    const told = await orc(['run', 'get', ended], { ORC_TELL_UNKNOWN: '1' });
    expect(told.stderr.trim().split('\n')).toEqual([
      `warning: ${TOLD}: GET /v1/runs/${ended} status "paused" (a value); colour (a field)`,
    ]);
    expect((await orc(['run', 'get', ended], { ORC_TELL_UNKNOWN: '0' })).stderr).toBe('');
  });

  it('many items, many pages: each unknown once per command', async () => {
    oddRuns();
    const r = await orc(['run', 'list', '--debug', '--limit', '1']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(toldLines(r.stderr)).toEqual([
      `warning: ${TOLD}: GET /v1/runs data[].status "paused" (a value); data[].colour (a field)`,
    ]);
  });

  it('under --json each is told in a {"warning":…} line with the unknowns as data', async () => {
    oddRuns();
    const r = await orc(['run', 'get', ended, '--debug', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('paused');
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const warnings = lines.filter((l) => l.warning);
    expect(warnings).toEqual([
      {
        warning: {
          message: `${TOLD}: GET /v1/runs/${ended} status "paused" (a value); colour (a field)`,
          where: `GET /v1/runs/${ended}`,
          unknowns: [
            { kind: 'value', path: 'status', value: 'paused' },
            { kind: 'field', path: 'colour' },
          ],
        },
      },
    ]);
  });

  it('an error code orc does not know is told, and the failure is reported as it is', async () => {
    const envelope = { error: { type: 'not_found_error', code: 'run_vanished', message: 'gone' } };
    proxy.plan = (req) =>
      req.url === '/v1/runs/run_x' ? { kind: 'answer', status: 404, body: JSON.stringify(envelope) } : { kind: 'pass' };
    const r = await orc(['run', 'get', 'run_x', '--debug']);
    expect(r.exitCode).not.toBe(0);
    expect(toldLines(r.stderr)).toEqual([`warning: ${TOLD}: GET /v1/runs/run_x error.code "run_vanished" (a value)`]);
  });

  it('orc watch lists an unknown event kind, stage and event field once, as met', async () => {
    proxy.plan = (req) =>
      req.url.includes('/events')
        ? {
            kind: 'rewrite',
            rewrite: (body) =>
              body
                .replaceAll('run.created', 'run.hatched')
                .replaceAll('"stage":"09_review"', '"stage":"10_launch"')
                .replaceAll('"run_id":', '"mood":"calm","run_id":'),
          }
        : { kind: 'pass' };
    const r = await orc(['watch', ended, '--debug']);
    const where = `GET /v1/runs/${ended}/events`;
    const told = toldLines(r.stderr);
    expect(told.join('\n')).toContain(`${where} type "run.hatched" (a value); mood (a field)`);
    expect(told.join('\n')).toContain(`${where} data.stage "10_launch" (a value)`);
    for (const thing of ['"run.hatched"', 'mood (a field)', '"10_launch"'])
      expect(told.filter((l) => l.includes(thing))).toHaveLength(1);
    expect(toldLines((await orc(['watch', ended])).stderr)).toEqual([]);
  });
});
