// `orc logs` chooses lines: --grep (a regular expression over the message), --since (the last duration), --tail
// (the last n; with --follow, the last n of the history, then each line as it comes). In process, against a
// sandbox of orc-cli/testing on a manual clock: nothing moves but what the test advances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { runOrc } from '../helpers/run.js';
import { until } from '../helpers/until.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;

let sb: TestSandbox;
let ended: string;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
  ended = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run: ended, to: 'end' });
});
afterAll(() => sb.stop());

const orc = (args: string[]) => runOrc(args, { env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey } });
const linesOf = (out: string) => out.split('\n').filter(Boolean);
/** A text line's message: after its time, stage and level columns. */
const messageOf = (line: string) =>
  line
    .split(/\s{2,}/)
    .slice(3)
    .join('  ');

describe('orc logs, choosing lines', () => {
  it('--grep keeps the lines whose message matches, --tail the last of them', async () => {
    const all = linesOf((await orc(['logs', ended])).stdout);
    expect(all.length).toBeGreaterThan(10);
    const grep = await orc(['logs', ended, '--grep', 'complete|passed']);
    expect(grep.exitCode, grep.stderr).toBe(0);
    const matched = linesOf(grep.stdout);
    expect(matched.length).toBeGreaterThan(0);
    expect(matched.length).toBeLessThan(all.length);
    expect(matched).toEqual(all.filter((l) => /complete|passed/.test(messageOf(l))));
    expect(linesOf((await orc(['logs', ended, '--tail', '3'])).stdout)).toEqual(all.slice(-3));
    const both = linesOf((await orc(['logs', ended, '--grep', 'complete|passed', '--tail', '2', '--json'])).stdout);
    expect(both.map((l) => JSON.parse(l).message)).toEqual(matched.slice(-2).map(messageOf));
  });

  it('--since keeps the lines of the last duration', async () => {
    const all = linesOf((await orc(['logs', ended])).stdout);
    expect(linesOf((await orc(['logs', ended, '--since', '30d'])).stdout)).toEqual(all);
    // The run's lines were stamped when the sandbox made them, before this command ran: a millisecond holds none.
    const none = await orc(['logs', ended, '--since', '1ms']);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no log lines in the last 1ms');
  });

  it('refuses a pattern that is not one, a duration that is not one, a tail of 0: exit 2 naming the flag', async () => {
    for (const [args, flag] of [
      [['--grep', '(unclosed'], '--grep'],
      [['--since', 'soon'], '--since'],
      [['--tail', '0'], '--tail'],
    ] as const) {
      const r = await orc(['logs', ended, ...args]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(flag);
      expect(r.stdout).toBe('');
    }
  });
});

describe('orc logs --follow --tail', () => {
  it('prints the last lines of the history, then each new line as it comes, to the run’s end', async () => {
    const id = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
    await sb.advance({ run: id, to: 'gate:brand' });
    const history = linesOf((await orc(['logs', id])).stdout);
    expect(history.length).toBeGreaterThan(2);
    const follow = orc(['logs', id, '--follow', '--tail', '2']);
    // The history's last two, once it is over (a quiet moment): then nothing more until the run moves.
    await until(() => linesOf(follow.stdout()).length >= 2, 'the last two lines of the history');
    expect(linesOf(follow.stdout())).toEqual(history.slice(-2));
    await sb.advance({ run: id, to: 'end' });
    const r = await follow;
    expect(r.exitCode, r.stderr).toBe(0);
    const after = linesOf(r.stdout).slice(2);
    const whole = linesOf((await orc(['logs', id])).stdout);
    expect(after.length).toBeGreaterThan(0);
    expect(after).toEqual(whole.slice(history.length));
  });
});
