// --accessible (ORC_ACCESSIBLE=1), after gh's accessibility work, in a real terminal (tmux): nothing is
// redrawn (the bytes sent hold no cursor movement, erase or hidden cursor: the screen only grows), progress
// is said every 10%, and a gate's question is numbered choices answered by number.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ORC_BIN, freshConfigDir } from '../helpers/cli.js';
import { http, idea, manualSandbox } from '../helpers/steer.js';
import { TmuxSession } from '../helpers/tmux.js';
import { needTool } from '../helpers/tools.js';
import { until } from '../helpers/until.js';

const manual = manualSandbox();
const withTmux = needTool('tmux', `the terminal tests in ${import.meta.filename.split('/').pop()}`);

it.runIf(withTmux)(
  'watch says each change on a line of its own, asks with numbers, and never redraws',
  async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Read aloud'))).body.id;
    await http(manual.url, 'POST', '/_sandbox/clock/advance', { run: id, to: 'gate:idea' });
    const raw = join(mkdtempSync(join(tmpdir(), 'orc-a11y-')), 'sent');
    const term = TmuxSession.start([process.execPath, ORC_BIN, 'watch', id], {
      env: { ORC_BASE_URL: manual.url, ORC_CONFIG_DIR: freshConfigDir(), ORC_ACCESSIBLE: '1' },
      record: raw,
    });
    try {
      await term.waitFor('Type a number from 1 to 7');
      const screen = term.screen();
      expect(screen).toMatch(/^01_intake 0%$/m);
      expect(screen).toMatch(/^01_intake 50%$/m);
      expect(screen).toMatch(/^02_concept 100%$/m);
      expect(screen).not.toMatch(/^01_intake [1-9]?[1-9]%$/m); // every tenth, never the steps between
      expect(screen).toContain('  1. Approve');
      expect(screen).toContain('  7. Stop watching (the run waits at this gate)');
      term.type('9');
      term.send('Enter');
      await term.waitFor('"9" is not one of the numbers 1 to 7.');
      term.type('1');
      term.send('Enter');
      await until(
        async () => (await http(manual.url, 'GET', `/v1/runs/${id}/gates`)).body.data[0].state === 'approved',
        'the idea gate approved',
      );
      await term.waitFor('approved gate idea');
      term.send('C-c');
      expect(await term.exitCode()).toBe(130);
    } finally {
      term.kill();
    }
    // The screen only grew: what was sent holds colour at most, never a cursor movement, erase or hidden cursor.
    const sent = readFileSync(raw, 'latin1');
    const moves = [...sent.matchAll(/\u001b\[[0-9;?]*([A-Za-z])/g)].map((m) => m[0]).filter((s) => !s.endsWith('m'));
    expect(moves).toEqual([]);
    expect(sent).toContain('Gate idea: your decision');
  },
  30_000,
);
