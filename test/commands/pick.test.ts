// The run picker (a run left out of the command line, at a terminal): each run offered by its id and its name.
// In process, with --accessible (numbered choices on stderr, answered by a line on stdin), on a manual clock.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { runOrc } from '../helpers/run.js';
import { until } from '../helpers/until.js';

const IDEA = { pitch: 'A tide table for sailors', audience: 'sailors', monetization: 'free' } as const;

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
});
afterAll(() => sb.stop());

describe('pickRun', () => {
  it('offers each run with its name after the id', async () => {
    const pitched = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
    const named = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
    const res = await fetch(`${sb.url}/v1/runs/${named}/spec`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Harbour Hours' }),
    });
    expect(res.status).toBe(200);
    const input = new PassThrough();
    const running = runOrc(['logs', '--accessible'], {
      env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey },
      tty: { stdin: true, stdout: true, stderr: true },
      input,
    });
    await until(() => running.stderr().includes('Type a number'), 'the question');
    input.end('1\n');
    const r = await running;
    expect(r.stderr).toContain('Which run?');
    expect(r.stderr).toMatch(new RegExp(`1\\. ${named}  Harbour Hours · running · `));
    expect(r.stderr).toMatch(new RegExp(`2\\. ${pitched}  \\S.* · running · `));
    expect(r.exitCode, r.stderr).toBe(0);
  });
});
