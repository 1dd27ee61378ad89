// A broken config folder is exit 4 naming the file and what is wrong: no stack trace, and never a silent
// fall-back to the built-in sandbox profile.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshConfigDir, runOrc } from '../helpers/run.js';

describe('a broken config folder', () => {
  const cases: Array<[string, (dir: string) => string, string]> = [
    [
      'config.json that does not parse',
      (dir) => (writeFileSync(join(dir, 'config.json'), '{"profiles": {'), dir),
      'is not valid JSON',
    ],
    [
      'config.json that is a folder',
      (dir) => (mkdirSync(join(dir, 'config.json')), dir),
      'is a folder, not the config file',
    ],
    [
      'a config folder that is a file',
      (dir) => (writeFileSync(join(dir, 'plain-file'), 'x'), join(dir, 'plain-file')),
      'is a file, not a folder',
    ],
    [
      'profiles that are not an object',
      (dir) => (writeFileSync(join(dir, 'config.json'), '{"profiles": [1]}'), dir),
      '"profiles" must be an object',
    ],
  ];
  it.each(cases)('%s: exit 4 naming it', async (_name, make, says) => {
    const configDir = make(freshConfigDir());
    for (const args of [
      ['run', 'list'],
      ['profile', 'list'],
      ['profile', 'show'],
    ]) {
      const r = await runOrc(args, { configDir, env: { ORC_BASE_URL: 'http://127.0.0.1:9' } });
      expect(r.exitCode, args.join(' ')).toBe(4);
      expect(r.stderr).toContain(says);
      expect(r.stderr).toContain(configDir);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    }
  });
});
