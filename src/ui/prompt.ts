// Questions for a person at a terminal (@inquirer/prompts, loaded on first use), asked on stderr so that
// stdout stays data. Commands ask through this interface; tests can hand them another.
import type { IO } from './io.js';

export interface Prompter {
  input(message: string, opts?: { default?: string; required?: boolean }): Promise<string>;
  password(message: string): Promise<string>;
  select<T extends string>(message: string, choices: Array<{ value: T; name?: string; description?: string }>): Promise<T>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
}

export function createPrompter(io: IO): Prompter {
  const context = { input: io.streams.stdin, output: io.streams.stderr, clearPromptOnDone: false } as never;
  const load = () => import('@inquirer/prompts');
  return {
    async input(message, opts = {}) {
      const { input } = await load();
      return input({ message, ...(opts.default !== undefined ? { default: opts.default } : {}), required: opts.required ?? false }, context);
    },
    async password(message) {
      const { password } = await load();
      return password({ message, mask: '•' }, context);
    },
    async select(message, choices) {
      const { select } = await load();
      return select({ message, choices }, context);
    },
    async confirm(message, defaultValue = false) {
      const { confirm } = await load();
      return confirm({ message, default: defaultValue }, context);
    },
  };
}
