// The questions of --accessible, a line asked and a line read: many of them in one session (a watch that
// decides gate after gate) leave stdin as they found it.
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { IO } from '../../src/ui/io.js';
import { createLinePrompter } from '../../src/ui/line-prompt.js';

it('asks question after question without leaving listeners on stdin', async () => {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const out = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  out.resume();
  const io = new IO({ stdin, stdout: out, stderr: out }, { json: false, noInput: false, env: {} });
  const prompter = createLinePrompter(io, undefined as never);
  const before = ['data', 'end', 'error'].map((e) => stdin.listenerCount(e));
  for (let i = 0; i < 12; i++) {
    const asked = prompter.select('Which?', [{ value: 'a' }, { value: 'b' }]);
    stdin.write('2\n');
    expect(await asked).toBe('b');
  }
  expect(['data', 'end', 'error'].map((e) => stdin.listenerCount(e))).toEqual(before);
});
