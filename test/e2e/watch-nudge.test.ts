// The built orc telling a person at a real terminal (tmux) that a gate opened or a run ended (--notify: a fake
// notify-send on PATH, OSC 9 in the bytes the terminal was sent), and running --on-gate-exec's command for
// each gate, its failure and its hang said while the watch goes on; a sandbox on a manual clock.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../src/sdk/testing.js';
import { freshConfigDir, ORC_BIN } from '../helpers/cli.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';
import { until } from '../helpers/until.js';

const withTmux = needTool('tmux', `the terminal tests in ${import.meta.filename.split('/').pop()}`);
const IDEA = { pitch: 'A tide clock for surfers', audience: 'surfers', monetization: 'free' } as const;

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000 });
});
afterAll(() => sb.stop());

const scratch = () => mkdtempSync(join(tmpdir(), 'orc-nudge-'));
const created = async () => (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
/** The run stepped to `gate` once the watch has begun (its header names the run): a gate that was already
 * pending when the watch began is no news, notified or hooked. */
const toGateOnceWatched = async (term: TmuxSession, id: string, gate: string) => {
  await term.waitFor(id);
  await sb.advance({ run: id, to: `gate:${gate}` });
};
const orcIn = (args: string[], env: Record<string, string>, record?: string) =>
  TmuxSession.start([process.execPath, ORC_BIN, ...args], {
    env: { ORC_BASE_URL: sb.url, ORC_API_KEY: sb.apiKey, ORC_CONFIG_DIR: freshConfigDir(), ...env },
    width: 120,
    height: 40,
    ...(record ? { record } : {}),
  });

describe.runIf(withTmux)('orc watch --notify at a terminal', () => {
  it('inside tmux, with a display: notify-send is run with the gate, then with the end', async () => {
    const dir = scratch();
    const seen = join(dir, 'seen');
    writeFileSync(join(dir, 'notify-send'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${seen}'\n`);
    chmodSync(join(dir, 'notify-send'), 0o755);
    const id = await created();
    const term = orcIn(['watch', id, '--notify', '--on-gate', 'wait'], {
      PATH: `${dir}:${process.env.PATH}`,
      DISPLAY: ':0',
    });
    try {
      await toGateOnceWatched(term, id, 'idea');
      const lines = () => (existsSync(seen) ? readFileSync(seen, 'utf8').split('\n').filter(Boolean) : []);
      await until(() => lines().length === 1, 'notify-send told of the gate', { seen: () => term.screen() });
      expect(lines()[0]).toMatch(new RegExp(`^--app-name=orc orc ${id} .+ — gate idea waits$`));
      await sb.advance({ run: id, to: 'end' });
      expect(await term.exitCode()).toBe(0);
      expect(lines()[1]).toMatch(new RegExp(`^--app-name=orc orc ${id} .+ accepted$`));
    } finally {
      term.kill();
    }
  }, 60_000);

  it('in iTerm2 (not in tmux): OSC 9 in the bytes the terminal was sent', async () => {
    const raw = join(scratch(), 'sent');
    const id = await created();
    const term = orcIn(['watch', id, '--notify', '--on-gate', 'wait'], { TMUX: '', TERM_PROGRAM: 'iTerm.app' }, raw);
    try {
      await toGateOnceWatched(term, id, 'brand');
      const sent = () => (existsSync(raw) ? readFileSync(raw, 'latin1') : '');
      await until(() => sent().includes('gate brand waits\u0007'), 'the OSC 9 sent', { seen: () => term.screen() });
      expect(Buffer.from(sent(), 'latin1').toString('utf8')).toMatch(
        new RegExp(`\u001b\\]9;${id} [^\u0007\u001b]+ — gate brand waits\u0007`),
      );
      await sb.advance({ run: id, to: 'end' });
      expect(await term.exitCode()).toBe(0);
      await until(() => sent().includes(' accepted\u0007'), 'the OSC 9 of the end');
    } finally {
      term.kill();
    }
  }, 60_000);
});

describe.runIf(withTmux)('orc watch --on-gate-exec', () => {
  it('the hook gets the event on stdin and in env; its failure and its hang are said; the watch goes to the end', async () => {
    const dir = scratch();
    const out = join(dir, 'hook');
    const hook = `if [ "$ORC_GATE" = brand ]; then exit 3; fi; if [ "$ORC_GATE" = final ]; then exec sleep 600; fi; { cat; echo "$ORC_RUN_ID $ORC_GATE $ORC_HINT"; } > '${out}'`;
    const id = await created();
    const term = orcIn(['watch', id, '--on-gate', 'wait', '--on-gate-exec', hook], { ORC_HOOK_TIMEOUT_MS: '300' });
    try {
      await toGateOnceWatched(term, id, 'idea');
      await until(() => existsSync(out) && readFileSync(out, 'utf8').split('\n').length === 3, 'the hook wrote');
      const [json, envLine] = readFileSync(out, 'utf8').split('\n');
      expect(JSON.parse(json!)).toMatchObject({ run_id: id, gate: 'idea', hint: `orc gate approve ${id} idea` });
      expect(envLine).toBe(`${id} idea orc gate approve ${id} idea`);
      await sb.client.gates.approve(id, 'idea');
      await sb.advance({ run: id, to: 'gate:brand' });
      await term.waitFor('--on-gate-exec for gate brand failed (exit 3)');
      await sb.client.gates.approve(id, 'brand');
      await sb.advance({ run: id, to: 'gate:final' });
      await term.waitFor('--on-gate-exec for gate final failed (still running after 0.3 s, killed)');
      await sb.client.gates.approve(id, 'final');
      await sb.advance({ run: id, to: 'end' });
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.kill();
    }
  }, 60_000);
});
