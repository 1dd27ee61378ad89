// Watching and deciding at a real terminal (tmux), as a person would: keystrokes in, the screen read back.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigDir, ORC_BIN } from '../helpers/cli.js';
import { quickClock, readSse, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';

const withTmux = needTool('tmux', `the terminal tests in ${import.meta.filename.split('/').pop()}`);

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 60, clock: quickClock() });
});
afterAll(() => sb.close());

const orcIn = (args: string[], env: Record<string, string> = {}) =>
  TmuxSession.start([process.execPath, ORC_BIN, ...args], {
    env: { ORC_BASE_URL: sb.url, ORC_CONFIG_DIR: freshConfigDir(), ...env },
    width: 110,
    height: 50,
  });
const count = (screen: string, text: string) => screen.split(text).length - 1;

describe.runIf(withTmux)('orc watch at a terminal', () => {
  it('approves idea by keystrokes, rejects brand with a note, approves the rest, and shows the scorecard', async () => {
    const term = orcIn([
      'run',
      'create',
      '--pitch',
      'A meditation timer',
      '--audience',
      'busy parents',
      '--monetization',
      'subscription',
      '--watch',
    ]);
    try {
      await term.waitFor('Gate idea: your decision');
      expect(term.screen()).toContain('monetization  subscription');
      term.send('Enter'); // Approve
      await term.waitFor('Gate brand: your decision');
      expect(term.screen()).toMatch(/palette\s+.*#[0-9A-F]{6}/);
      term.send('Down');
      term.send('Enter'); // Reject, with notes written here
      await term.waitFor('Notes for the rejection');
      term.type('Warmer palette, softer type');
      term.send('Enter');
      await term.waitFor('rejected gate brand');
      // the brand gate opens again after the rework
      await term.waitFor(/Gate brand: your decision[\s\S]*Gate brand: your decision/);
      // the question says what was decided there before, and why
      expect(term.screen()).toMatch(/before\s+rejected \d\d:\d\d — “Warmer palette, softer type”/);
      term.send('Enter');
      await term.waitFor('Gate final: your decision');
      const finalScreen = term.screen();
      expect(finalScreen).toContain('Scorecard');
      expect(finalScreen).toMatch(/beauty\s+█+░*\s+\d+/);
      expect(finalScreen).toContain('Pre-flight');
      expect(count(finalScreen, 'Scorecard')).toBe(1); // drawn by the view, not again by the question
      term.send('Enter');
      expect(await term.exitCode(30_000)).toBe(0);
      const end = term.screen();
      expect(end).toMatch(/accepted: app \d+ https:\/\/apps\.apple\.com/);
      expect(count(end, '◆ gate brand rejected')).toBe(1);
      const runId = /Created (run_\S+);/.exec(end)![1]!;
      const events = (await readSse(`${sb.url}/v1/runs/${runId}/events`))
        .filter((m) => m.event === 'run.gate_resolved')
        .map((m) => JSON.parse(m.data!).data);
      expect(events).toEqual([
        { gate: 'idea', decision: 'approved', notes: null },
        { gate: 'brand', decision: 'rejected', notes: 'Warmer palette, softer type' },
        { gate: 'brand', decision: 'approved', notes: null },
        { gate: 'final', decision: 'approved', notes: null },
      ]);
      expect((await sb.call('GET', `/v1/runs/${runId}`)).body.status).toBe('accepted');
    } finally {
      term.kill();
    }
  }, 60_000);

  it('closes the prompt when the gate is decided elsewhere, and says who won; stopping leaves exit 6', async () => {
    const run = await sb.createRun('Decided elsewhere');
    const term = orcIn(['watch', run.id]);
    try {
      await term.waitFor('Gate idea: your decision');
      await sb.call('POST', `/v1/runs/${run.id}/gates/idea:approve`);
      await term.waitFor('gate idea was approved elsewhere');
      await term.waitFor('Gate brand: your decision');
      // The dead menu was taken off the screen; the summary above it stays.
      expect(count(term.screen(), 'Gate idea: your decision')).toBe(0);
      expect(term.screen()).toContain('Gate idea of');
      for (let i = 0; i < 6; i++) term.send('Down');
      term.send('Enter'); // Stop watching
      expect(await term.exitCode()).toBe(6);
      expect(term.screen()).toContain('gate brand of');
      expect((await sb.call('GET', `/v1/runs/${run.id}`)).body.gate_pending).toBe('brand');
    } finally {
      term.kill();
    }
  }, 60_000);

  it('Ctrl-C stops watching, leaves the run going, restores the cursor, exit 130', async () => {
    // 1 h stages: the run stands at 01_intake however long the terminal takes to start (on 5 s stages a busy
    // machine could see it at 02_concept, or at its gate, before Ctrl-C).
    const slow = await startTestSandbox({ stageMs: 3_600_000 });
    const run = await slow.createRun('Interrupted');
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'watch', run.id], {
      env: { ORC_BASE_URL: slow.url, ORC_CONFIG_DIR: freshConfigDir() },
    });
    try {
      await term.waitFor(/▸ 01_intake/);
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
      expect((await slow.call('GET', `/v1/runs/${run.id}`)).body.status).toBe('running');
      expect(term.cursorVisible()).toBe(true);
      const screen = term.screen();
      expect(screen).toMatch(/^▸ 01_intake/m); // the last frame stays on screen, drawn from column 0
      expect(screen).not.toMatch(/▸ ▸/); // not over the terminal's own ^C
      expect(screen).toContain(`${run.id} goes on. Watch it again with \`orc watch ${run.id}\``);
    } finally {
      term.kill();
      await slow.close();
    }
  }, 30_000);
});

describe.runIf(withTmux)('a failed or cancelled decision never turns into an approve', () => {
  it('empty notes at "Reject, with notes written here" leave the cursor on Reject; the next Enter asks for notes again', async () => {
    const run = await sb.waitFor((await sb.createRun('Empty notes')).id, (r) => r.gate_pending === 'idea');
    const term = orcIn(['watch', run.id]);
    try {
      await term.waitFor('Gate idea: your decision');
      term.send('Down');
      term.send('Enter'); // Reject, with notes written here
      await term.waitFor('Notes for the rejection');
      term.send('Enter'); // empty
      await term.waitFor(/The notes are empty: nothing was sent[\s\S]*Gate idea: your decision/);
      expect(term.screen()).toMatch(/❯ Reject, with notes written here/);
      term.send('Enter');
      await term.waitFor(/The notes are empty[\s\S]*Notes for the rejection/);
      expect((await sb.call('GET', `/v1/runs/${run.id}`)).body.gate_pending).toBe('idea');
      term.type('Sharper pitch');
      term.send('Enter');
      await term.waitFor('rejected gate idea');
      // (The run goes back and may already wait at idea again: the decision is read from its history.)
      const resolved = (
        await readSse(`${sb.url}/v1/runs/${run.id}/events`, {}, (ms) => ms.some((m) => m.event === 'run.gate_resolved'))
      ).filter((m) => m.event === 'run.gate_resolved');
      expect(resolved.map((m) => JSON.parse(m.data!).data)).toEqual([
        { gate: 'idea', decision: 'rejected', notes: 'Sharper pitch' },
      ]);
    } finally {
      term.kill();
    }
  }, 60_000);

  it('watching a run whose gate was decided before never says it was decided "elsewhere"', async () => {
    const run = await sb.waitFor((await sb.createRun('Rejected before')).id, (r) => r.gate_pending === 'idea');
    await sb.call('POST', `/v1/runs/${run.id}/gates/idea:reject`, { notes: 'Again, please' });
    await sb.waitFor(run.id, (r) => r.gate_pending === 'idea');
    const term = orcIn(['watch', run.id]);
    try {
      await term.waitFor('Gate idea: your decision');
      term.send('Enter'); // Approve
      await term.waitFor('approved gate idea');
      await term.waitFor('Gate brand: your decision');
      const screen = term.screen();
      expect(screen).not.toContain('elsewhere');
      expect(count(screen, 'approved gate idea')).toBe(1);
      const gates = (await sb.call('GET', `/v1/runs/${run.id}/gates`)).body.data;
      expect(gates.find((g: { name: string }) => g.name === 'idea').state).toBe('approved');
    } finally {
      term.kill();
    }
  }, 60_000);

  it('Ctrl-C while the run waits at a gate says it waits there, with the commands that decide it', async () => {
    const run = await sb.waitFor((await sb.createRun('Left at the gate')).id, (r) => r.gate_pending === 'idea');
    const term = orcIn(['watch', run.id]);
    try {
      await term.waitFor('Gate idea: your decision');
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
      const screen = term.screen().replace(/\n/g, ''); // (the line wraps at the terminal's width)
      expect(screen).toContain(
        `${run.id} waits at gate idea. Decide it with \`orc gate approve ${run.id} idea\` or \`orc gate reject ${run.id} idea --notes …\``,
      );
      expect(screen).not.toContain('goes on');
      expect((await sb.call('GET', `/v1/runs/${run.id}`)).body.gate_pending).toBe('idea');
    } finally {
      term.kill();
    }
  }, 30_000);
});

describe.runIf(withTmux)('the final gate when the scorecard did not pass', () => {
  it('does not offer approve first, and asks before approving', async () => {
    const term = orcIn([
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
      'idea,brand',
    ]);
    try {
      await term.waitFor('Gate final: your decision');
      const screen = term.screen();
      expect(screen).toContain('Careful: the scorecard did not pass');
      expect(screen).toMatch(/❯ Leave it pending and keep watching/); // the default is not approve
      term.send('Down');
      term.send('Enter'); // Approve anyway
      await term.waitFor('Approve the final gate although the scorecard did not pass');
      term.type('n');
      term.send('Enter');
      await term.waitFor('Not approved.');
      const runId = /Created (run_\S+);/.exec(term.screen())![1]!;
      expect((await sb.call('GET', `/v1/runs/${runId}`)).body.gate_pending).toBe('final');
      await term.waitFor(/Not approved\.[\s\S]*Gate final: your decision/);
      term.send('Down');
      term.send('Enter');
      // (the first question is still on the screen: wait for the one asked after it)
      await term.waitFor(/Not approved\.[\s\S]*Approve the final gate although/);
      term.type('y');
      term.send('Enter');
      await term.waitFor('approved gate final');
      await term.exitCode(30_000);
      const gates = (await sb.call('GET', `/v1/runs/${runId}/gates`)).body.data;
      expect(gates.find((g: { name: string }) => g.name === 'final').state).toBe('approved');
    } finally {
      term.kill();
    }
  }, 60_000);
});

describe.runIf(withTmux)('orc gate reject at a terminal', () => {
  it('takes the notes from $EDITOR, and refuses an empty note without sending anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-editor-'));
    const writes = join(dir, 'writes-notes');
    writeFileSync(writes, `#!/bin/sh\nprintf 'Too corporate\\n# a comment line\\nwarmer, please\\n' > "$1"\n`);
    const empty = join(dir, 'writes-nothing');
    writeFileSync(empty, '#!/bin/sh\nprintf "# only a comment\\n" > "$1"\n');
    chmodSync(writes, 0o755);
    chmodSync(empty, 0o755);
    const run = await sb.waitFor((await sb.createRun('Editor notes')).id, (r) => r.gate_pending === 'idea');

    const refused = orcIn(['gate', 'reject', run.id, 'idea'], { EDITOR: empty });
    try {
      expect(await refused.exitCode()).toBe(2);
      expect(refused.screen()).toContain('the notes are empty: nothing was sent');
    } finally {
      refused.kill();
    }
    expect((await sb.call('GET', `/v1/runs/${run.id}`)).body.gate_pending).toBe('idea');

    const term = orcIn(['gate', 'reject', run.id, 'idea'], { EDITOR: writes, VISUAL: '' });
    try {
      expect(await term.exitCode()).toBe(0);
      expect(term.screen()).toContain('gate idea rejected');
    } finally {
      term.kill();
    }
    const resolved = (
      await readSse(`${sb.url}/v1/runs/${run.id}/events`, {}, (ms) => ms.some((m) => m.event === 'run.gate_resolved'))
    ).find((m) => m.event === 'run.gate_resolved');
    expect(JSON.parse(resolved!.data!).data).toEqual({
      gate: 'idea',
      decision: 'rejected',
      notes: 'Too corporate\nwarmer, please',
    });
  }, 30_000);
});
