// What a newcomer and a fault test hit, one test each: the words orc says must be true and lead somewhere.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/clock.js';
import { runOrc } from '../helpers/run.js';
import { quickClock, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { handServer, json } from '../helpers/server.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 40, clock: quickClock() });
});
afterAll(() => sb.close());
const at = () => ({ env: { ORC_BASE_URL: sb.url } });
const idea = ['--pitch', 'A tide table', '--audience', 'sailors', '--monetization', 'paid'];

describe('messages', () => {
  it('gate approve on a canceled run says the run is canceled', async () => {
    const run = await sb.waitFor((await sb.createRun('Canceled at a gate')).id, (r) => r.gate_pending === 'idea');
    await sb.call('POST', `/v1/runs/${run.id}/cancel`);
    const r = await runOrc(['gate', 'approve', run.id, 'idea'], at());
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(`run ${run.id} is canceled; its gates can no longer be decided`);
    expect(r.stderr).not.toContain('pending, not pending');
  });

  it('an idempotent replay says the run already existed, not "Created"', async () => {
    const first = await runOrc(['run', 'create', ...idea, '--idempotency-key', 'replay-words-1'], at());
    expect(first.stderr).toContain('Created run_');
    const again = await runOrc(['run', 'create', ...idea, '--idempotency-key', 'replay-words-1'], at());
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain('already existed');
    expect(again.stderr).not.toContain('Created');
  });

  it('piped run get prints ISO times, as run list does', async () => {
    const run = await sb.createRun('Times');
    const r = await runOrc(['run', 'get', run.id], at());
    expect(r.stdout).toMatch(/^created\s+\d{4}-\d\d-\d\dT[\d:.]+Z$/m);
    expect(r.stdout).not.toContain('ago');
  });

  it('run list --live on the built-in profile suggests a command that works', async () => {
    const r = await runOrc(['run', 'list', '--live']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('the built-in sandbox profile has no live key');
    expect(r.stderr).toContain('orc profile add prod --base-url https://');
    expect(r.stderr).not.toContain('orc profile add sandbox');
  });

  it('--approve final on a run whose scorecard did not pass approves, and says so on stderr', async () => {
    const r = await runOrc(
      [
        'run',
        'create',
        '--pitch',
        'A low scorer #lowscore',
        '--audience',
        'x',
        '--monetization',
        'free',
        '--watch',
        '--approve',
        'idea,brand,final',
        '--json',
      ],
      at(),
    );
    expect(r.stderr).toMatch(/approved gate final of run_\S+ although the scorecard did not pass/);
    expect(
      r.stdout
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === 'run.gate_resolved')
        .map((e) => e.data.gate),
    ).toContain('final');
  });

  it('watch against a dead host gives up after the attempts the README states (8 reconnects, 9 attempts)', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const r = await runOrc(['watch', 'run_gone'], {
      env: { ORC_BASE_URL: `http://127.0.0.1:${port}` },
      clock: new FakeClock({ autoMs: 29_999 }) /* backoff passes at once; the 30 s silence rule does not */,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.match(/reconnecting in/g)).toHaveLength(8);
    expect(r.stderr).toContain('(9 attempts in a row)');
    expect(r.stderr).toContain('orc watch run_gone');
  });
  it('under --json every line of stderr is JSON: retries are notices, the failure the one error, last', async () => {
    const server = await handServer((_req, res) =>
      json(res, 500, { error: { type: 'api_error', code: 'internal_error', message: 'boom' } }),
    );
    try {
      const env = { env: { ORC_BASE_URL: server.url }, clock: new FakeClock({ autoMs: 10_000 }) };
      const r = await runOrc(['run', 'list', '--json'], env);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, { message: string }>);
      expect(lines.length).toBeGreaterThan(1);
      expect(
        lines
          .slice(0, -1)
          .every(
            (l) => Object.keys(l).join() === 'notice' && /^500 internal_error; retrying in /.test(l.notice!.message),
          ),
      ).toBe(true);
      expect(lines.at(-1)!.error).toMatchObject({ code: 'internal_error', exit_code: 1 });
      const debug = await runOrc(['run', 'list', '--jq', '.', '--debug'], env);
      expect(
        debug.stderr
          .trimEnd()
          .split('\n')
          .map((l) => Object.keys(JSON.parse(l))[0]),
      ).toContain('debug');
    } finally {
      await server.close();
    }
  });
});
