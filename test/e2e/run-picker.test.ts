// A run left out of the command line: at a terminal (tmux) the runs that fit are offered, newest first;
// without one it is exit 2 naming <run>. Against a real sandbox on a manual clock.
import { describe, expect, it } from 'vitest';
import { ORC_BIN, freshConfigDir, orc } from '../helpers/cli.js';
import { http, idea, manualSandbox } from '../helpers/steer.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';

const manual = manualSandbox();
const withTmux = needTool('tmux', `the terminal tests in ${import.meta.filename.split('/').pop()}`);

describe('without a terminal', () => {
  it.each([['watch'], ['gate', 'approve'], ['spec', 'edit'], ['artifacts', 'pull'], ['logs'], ['scorecard']])(
    'orc %s %s without a run is exit 2 naming <run>',
    async (...words) => {
      const args = words.filter((w): w is string => typeof w === 'string');
      const r = await orc([...args, '--json'], { env: { ORC_BASE_URL: manual.url } });
      expect(r.exitCode).toBe(2);
      expect(JSON.parse(r.stderr).error).toMatchObject({ field: '<run>', exit_code: 2 });
      expect(JSON.parse(r.stderr).error.message).toContain('missing <run>');
    },
  );
});

describe.runIf(withTmux)('at a terminal', () => {
  it('gate approve offers only the runs waiting at a gate, newest first, and decides the gate the picked one waits at', async () => {
    const moving = (await http(manual.url, 'POST', '/v1/runs', idea('Still moving'))).body.id;
    const older = (await http(manual.url, 'POST', '/v1/runs', idea('Older gate'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: older, to: 'gate:idea' });
    const newer = (await http(manual.url, 'POST', '/v1/runs', idea('Newer gate'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: newer, to: 'gate:brand' });
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'gate', 'approve'], {
      env: { ORC_BASE_URL: manual.url, ORC_CONFIG_DIR: freshConfigDir() },
    });
    try {
      const menu = await term.waitFor('Which run (waiting at a gate)?');
      await term.waitFor(older);
      const screen = term.screen();
      expect(screen.indexOf(newer)).toBeLessThan(screen.indexOf(older)); // newest first
      expect(screen).not.toContain(moving);
      expect(menu).toContain('gate brand');
      term.send('Down');
      term.send('Enter');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.kill();
    }
    const gates = (await http(manual.url, 'GET', `/v1/runs/${older}/gates`)).body.data;
    expect(gates.find((g: { name: string }) => g.name === 'idea').state).toBe('approved');
    expect((await http(manual.url, 'GET', `/v1/runs/${newer}`)).body.gate_pending).toBe('brand'); // not the one picked
  }, 30_000);
});
