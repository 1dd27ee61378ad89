// `npm test` (scripts/test.mjs): what it asks of vitest, so its output suits where it goes.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without types
import { vitestArgs } from '../../scripts/test.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

describe('npm test', () => {
  it('asks vitest for no colour into a pipe, unless colour was asked for; at a terminal leaves it be', () => {
    expect(vitestArgs(['test/lib'], false, { TERM: 'xterm' })).toEqual(['run', '--no-color', 'test/lib']);
    expect(vitestArgs(['test/lib'], true, { TERM: 'xterm' })).toEqual(['run', 'test/lib']);
    expect(vitestArgs([], false, { FORCE_COLOR: '1' })).toEqual(['run']);
    expect(vitestArgs(['--color'], false, {})).toEqual(['run', '--color']);
  });

  it('piped, with TERM set as in most CI logs, vitest writes no escape codes', async () => {
    const vitest = resolve(ROOT, 'node_modules/vitest/vitest.mjs');
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm' };
    delete env.NO_COLOR;
    delete env.FORCE_COLOR;
    const r = await promisify(execFile)(
      process.execPath,
      [vitest, ...vitestArgs(['test/contract/signature.test.ts'], false, env)],
      { cwd: ROOT, env },
    );
    expect(r.stdout).toContain('passed');
    expect(r.stdout + r.stderr).not.toContain('\u001b[');
  });
});
