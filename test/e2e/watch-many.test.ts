// Several runs in one watch, and the run list kept live: through the built orc against a real sandbox on a
// manual clock (runs move when the test advances them); the terminal views in tmux.
import { describe, expect, it } from 'vitest';
import { ORC_BIN, freshConfigDir, orc } from '../helpers/cli.js';
import { http, idea, manualSandbox } from '../helpers/steer.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';

const manual = manualSandbox();
const withTmux = needTool('tmux', `the terminal tests in ${import.meta.filename.split('/').pop()}`);
const at = (args: string[]) => orc(args, { env: { ORC_BASE_URL: manual.url } });
const create = async (pitch: string) => (await http(manual.url, 'POST', '/v1/runs', idea(pitch))).body.id as string;
const advance = (run: string, to: string) => http(manual.url, 'POST', '/_sandbox/clock/advance', { run, to });

describe('orc watch <run> <run>…', () => {
  it('follows them together: NDJSON with each event’s run_id; the exit code is the worst outcome', async () => {
    const good = await create('Goes well');
    const bad = await create('Breaks #fail');
    await advance(good, 'end');
    await advance(bad, 'end');
    const r = await at(['watch', good, bad, '--json']);
    expect(r.exitCode, r.stderr).toBe(5);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(new Set(events.map((e: { run_id: string }) => e.run_id))).toEqual(new Set([good, bad]));
    expect(events.some((e: { type: string; run_id: string }) => e.type === 'run.accepted' && e.run_id === good)).toBe(
      true,
    );
    expect(events.some((e: { type: string; run_id: string }) => e.type === 'run.failed' && e.run_id === bad)).toBe(
      true,
    );
    // Piped: a line per change, each with its run.
    const plain = await at(['watch', good, bad]);
    expect(plain.stdout).toMatch(new RegExp(`^${good} accepted`, 'm'));
    expect(plain.stdout).toMatch(new RegExp(`^${bad} failed at 05_build`, 'm'));
    expect(plain.stderr).toContain('1 accepted, 1 ended badly');
    // Every id is checked before anything is asked, as for one run.
    const slip = await at(['watch', good, '../x', '--json']);
    expect(slip.exitCode).toBe(2);
    expect(JSON.parse(slip.stderr).error).toMatchObject({ field: '<run>', exit_code: 2 });
  });

  it('--all follows every run not ended; a gate no one decides ends it with 6, the time running out with 7', async () => {
    await http(manual.url, 'POST', '/_sandbox/reset');
    const a = await create('Waits at a gate');
    const b = await create('Just slow');
    await advance(a, 'gate:idea');
    const gated = await at(['watch', '--all', '--max-wait', '1', '--json']);
    expect(gated.exitCode, gated.stderr).toBe(6);
    // With the gate approved as it comes, only the time runs out.
    const timed = await at(['watch', '--all', '--max-wait', '1', '--approve', 'idea', '--json']);
    expect(timed.exitCode, timed.stderr).toBe(7);
    expect((await http(manual.url, 'GET', `/v1/runs/${a}`)).body.stage).toBe('03_brand');
    expect((await http(manual.url, 'GET', `/v1/runs/${b}`)).body.status).toBe('running');
  });
});

describe.runIf(withTmux)('at a terminal', () => {
  // Each line: the id, the run's name (issue 37), then its state.
  it('watch of several runs keeps a line per run, and says each outcome there', async () => {
    const one = await create('First in view');
    const two = await create('Second in view');
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'watch', one, two, '--on-gate', 'wait'], {
      env: { ORC_BASE_URL: manual.url, ORC_CONFIG_DIR: freshConfigDir() },
    });
    try {
      await term.waitFor(new RegExp(`${two}\\s.*\\s01_intake`));
      await advance(one, 'end');
      await term.waitFor(new RegExp(`${one}\\s.*\\s✓ accepted`));
      expect(term.screen()).toMatch(new RegExp(`${two}\\s.*\\s01_intake`));
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
    } finally {
      term.kill();
    }
  }, 30_000);

  it('asks about the gates of several runs in turn, one question at a time', async () => {
    const first = await create('First to ask');
    const second = await create('Second to ask');
    await advance(first, 'gate:idea');
    await advance(second, 'gate:idea');
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'watch', first, second], {
      env: { ORC_BASE_URL: manual.url, ORC_CONFIG_DIR: freshConfigDir() },
    });
    const state = async (id: string) => (await http(manual.url, 'GET', `/v1/runs/${id}/gates`)).body.data[0].state;
    try {
      await term.waitFor('Gate idea: your decision');
      expect((term.screen().match(/Gate idea: your decision/g) ?? []).length).toBe(1); // one question on screen
      term.send('Enter'); // Approve
      await term.waitFor(/approved gate idea[\s\S]*Gate idea: your decision/);
      term.send('Enter');
      await term.waitFor(/approved gate idea[\s\S]*approved gate idea/);
      expect([await state(first), await state(second)]).toEqual(['approved', 'approved']);
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
    } finally {
      term.kill();
    }
  }, 30_000);

  it('Ctrl-C at the gate question of several runs stops the watch with 130; the runs go on, none is lost', async () => {
    const first = await create('Interrupted at a gate');
    const second = await create('Still moving');
    await advance(first, 'gate:idea');
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'watch', first, second], {
      env: { ORC_BASE_URL: manual.url, ORC_CONFIG_DIR: freshConfigDir() },
    });
    try {
      await term.waitFor('Gate idea: your decision');
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
      expect(term.screen()).not.toContain('lost');
      expect((await http(manual.url, 'GET', `/v1/runs/${first}`)).body.gate_pending).toBe('idea');
    } finally {
      term.kill();
    }
  }, 30_000);

  it('a gate question of several runs is withdrawn when the gate is decided elsewhere', async () => {
    const first = await create('Decided elsewhere');
    const second = await create('Keeps going');
    await advance(first, 'gate:idea');
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'watch', first, second], {
      env: { ORC_BASE_URL: manual.url, ORC_CONFIG_DIR: freshConfigDir() },
    });
    try {
      await term.waitFor('Gate idea: your decision');
      await http(manual.url, 'POST', `/v1/runs/${first}/gates/idea:approve`, {});
      await term.waitFor('gate idea was approved elsewhere');
      expect(term.screen()).not.toContain('Gate idea: your decision');
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
    } finally {
      term.kill();
    }
  }, 30_000);

  // A row: the id, the run's name (issue 37), then its status.
  it('run list --watch draws the list again as runs come and change', async () => {
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'run', 'list', '--watch'], {
      env: { ORC_BASE_URL: manual.url, ORC_CONFIG_DIR: freshConfigDir() },
    });
    try {
      await term.waitFor('every 2 s · Ctrl-C to stop');
      const fresh = await create('Appears live');
      await term.waitFor(fresh);
      await advance(fresh, 'gate:idea');
      await term.waitFor(new RegExp(`${fresh}\\s.*\\sawaiting_approval`));
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
    } finally {
      term.kill();
    }
  }, 30_000);

  it('run list --watch without a terminal is exit 2, pointing at watch --all', async () => {
    const r = await at(['run', 'list', '--watch']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('orc watch --all');
  });
});
