// Questions for screen readers and braille displays (--accessible): a line asked, a line read. Choices are
// numbered and answered by number; nothing is redrawn, so what was said stays where it was said. Passwords
// keep the masked prompt (its echo is the terminal's to hide).
import { createInterface } from 'node:readline/promises';
import type { IO } from './io.js';
import type { Prompter } from './prompt.js';

/** As @inquirer/prompts names them: the watch's prompt handling knows these two. */
const aborted = () => Object.assign(new Error('the question was closed'), { name: 'AbortPromptError' });
const ended = () => Object.assign(new Error('input ended'), { name: 'ExitPromptError' });

export function createLinePrompter(io: IO, masked: Prompter): Prompter {
  const say = (text: string) => io.streams.stderr.write(`${text}\n`);
  async function ask(question: string, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) throw aborted();
    const rl = createInterface({ input: io.streams.stdin, output: io.streams.stderr, terminal: false });
    let onClose = () => {};
    try {
      return await new Promise<string>((resolve, reject) => {
        onClose = () => reject(ended());
        rl.once('close', onClose);
        rl.question(question, signal ? { signal } : {}).then(
          (answer) => resolve(answer.trim()),
          (err: unknown) => reject((err as Error)?.name === 'AbortError' ? aborted() : err),
        );
      });
    } finally {
      // Only this listener: readline's own 'close' handler takes its listeners off stdin, and without it each
      // question left three there (Node's MaxListenersExceededWarning on the terminal by the eleventh).
      rl.off('close', onClose);
      rl.close();
    }
  }
  return {
    async input(message, opts = {}) {
      for (;;) {
        const answer =
          (await ask(`${message}${opts.default ? ` [${opts.default}]` : ''}: `, opts.signal)) || (opts.default ?? '');
        if (answer || !opts.required) return answer;
        say('An answer is needed.');
      }
    },
    password: (message, opts) => masked.password(message, opts),
    async select(message, choices, opts = {}) {
      say(message);
      choices.forEach((c, i) => say(`  ${i + 1}. ${c.name ?? c.value}`));
      const preset = opts.default === undefined ? -1 : choices.findIndex((c) => c.value === opts.default);
      for (;;) {
        const answer = await ask(
          `Type a number from 1 to ${choices.length}${preset >= 0 ? `, or Enter for ${preset + 1}` : ''}: `,
          opts.signal,
        );
        const n = answer === '' && preset >= 0 ? preset + 1 : Number(answer);
        if (Number.isInteger(n) && n >= 1 && n <= choices.length) return choices[n - 1]!.value;
        say(`${JSON.stringify(answer)} is not one of the numbers 1 to ${choices.length}.`);
      }
    },
    async confirm(message, defaultValue = false, opts = {}) {
      for (;;) {
        const answer = (
          await ask(`${message} Type yes or no${defaultValue ? ', Enter for yes' : ', Enter for no'}: `, opts.signal)
        ).toLowerCase();
        if (answer === '') return defaultValue;
        if (answer === 'y' || answer === 'yes') return true;
        if (answer === 'n' || answer === 'no') return false;
        say('Type yes or no.');
      }
    },
  };
}
