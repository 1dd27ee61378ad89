// Ended runs' names kept in the cache folder: per target, the newest 2,000, and a file that is not ours (or
// half of one) read as nothing, never an error.
import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nameMemory } from '../../src/config/name-memory.js';

const URL_A = 'http://127.0.0.1:4010';

describe('nameMemory', () => {
  it('keeps names per target across instances, the newest 2,000, in a file only its owner reads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-memory-'));
    const m = nameMemory(dir, URL_A);
    for (let i = 0; i < 2005; i++) m.set(`run_${i}`, i === 7 ? null : `App ${i}`);
    m.save();
    const again = nameMemory(dir, URL_A);
    expect(again.get('run_2004')).toBe('App 2004');
    expect(again.get('run_4')).toBeUndefined(); // the oldest went
    expect(again.get('run_7')).toBeNull(); // a spec without a name is known too
    expect(nameMemory(dir, 'https://api.example.com').get('run_2004')).toBeUndefined();
    expect(statSync(join(dir, 'cache', 'run-names.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, 'cache', 'run-names.json'), 'utf8')).base_url).toBe(URL_A);
  });

  it('a file that is not what it should be is read as nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-memory-'));
    mkdirSync(join(dir, 'cache'));
    for (const text of [
      '{"base_url":"http://127.0.0.1:4010","val',
      '[1,2]',
      `{"base_url":"${URL_A}","value":{"run_1":"x"}}`,
    ]) {
      writeFileSync(join(dir, 'cache', 'run-names.json'), text);
      expect(nameMemory(dir, URL_A).get('run_1')).toBeUndefined();
    }
    writeFileSync(
      join(dir, 'cache', 'run-names.json'),
      JSON.stringify({
        base_url: URL_A,
        value: [
          ['run_1', 'Tide'],
          ['run_2', 42],
          ['__proto__', 'x'],
        ],
      }),
    );
    const m = nameMemory(dir, URL_A);
    expect([m.get('run_1'), m.get('run_2')]).toEqual(['Tide', undefined]);
  });
});
