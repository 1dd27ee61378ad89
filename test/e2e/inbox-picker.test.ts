// The inbox's picker through the built orc at a terminal (tmux): `orc gate list` shows every gate waiting,
// oldest first, then asks which to decide; the line picked goes to watch's decision prompt. Against a real
// sandbox on a manual clock.
import { describe, expect, it } from 'vitest';
import { ORC_BIN, freshConfigDir, orc } from '../helpers/cli.js';
import { http, idea, manualSandbox } from '../helpers/steer.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';

const manual = manualSandbox();
const withTmux = needTool('tmux', `the terminal tests in ${import.meta.filename.split('/').pop()}`);

const park = async (pitch: string, gate: string) => {
  const id = (await http(manual.url, 'POST', '/v1/runs', idea(pitch))).body.id as string;
  await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: `gate:${gate}` });
  return id;
};
const gateOf = async (run: string, name: string) =>
  (await http(manual.url, 'GET', `/v1/runs/${run}/gates`)).body.data.find((g: { name: string }) => g.name === name);

describe('without a terminal', () => {
  it('orc gate list prints the inbox and asks nothing', async () => {
    const r = await orc(['gate', 'list'], { env: { ORC_BASE_URL: manual.url } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('No gate waits for a decision.');
    expect(r.stderr).not.toContain('Decide which gate?');
  });
});

describe.runIf(withTmux)('at a terminal', () => {
  it('orc gate list offers the waiting gates, oldest first; the one picked is decided at the gate prompt', async () => {
    const older = await park('Older at the idea gate', 'idea');
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { by: '10m' });
    const newer = await park('Newer at the brand gate', 'brand');
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'gate', 'list'], {
      env: { ORC_BASE_URL: manual.url, ORC_CONFIG_DIR: freshConfigDir() },
    });
    try {
      await term.waitFor('Decide which gate?');
      const screen = await term.waitFor('Not now');
      const table = screen.slice(0, screen.indexOf('Decide which gate?'));
      expect(table).toMatch(/RUN\s+NAME\s+GATE\s+WAITING/);
      expect(table.indexOf(older)).toBeLessThan(table.indexOf(newer)); // oldest wait first
      term.send('Down'); // the newer one, at brand
      term.send('Enter');
      await term.waitFor('Gate brand: your decision');
      expect(term.screen()).toContain(`Gate brand of ${newer} awaits your decision`); // the gate's context
      // Asked on its own, not from a watch: nothing to keep watching or stop.
      const menu = await term.waitFor('Leave it pending');
      expect(menu).not.toMatch(/keep watching|Stop watching/);
      term.send('Enter'); // Approve
      await term.waitFor('approved gate brand');
      expect(await term.exitCode()).toBe(0);
    } finally {
      term.kill();
    }
    expect((await gateOf(newer, 'brand')).state).toBe('approved');
    expect((await gateOf(older, 'idea')).state).toBe('pending'); // not the one picked
  }, 30_000);
});
