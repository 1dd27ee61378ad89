// Questions for a person at a terminal (@inquirer/prompts, loaded on first use), asked on stderr so that
// stdout stays data. Commands ask through this interface; tests can hand them another. A prompt given an
// AbortSignal closes when it fires (a gate decided elsewhere).
import type { IO } from './io.js';

export interface AskOptions {
  signal?: AbortSignal;
}

export interface Prompter {
  input(message: string, opts?: AskOptions & { default?: string; required?: boolean }): Promise<string>;
  password(message: string, opts?: AskOptions & { validate?: (value: string) => true | string }): Promise<string>;
  /** `default`: the choice the cursor starts on (the first when absent). */
  select<T extends string>(
    message: string,
    choices: Array<{ value: T; name?: string; description?: string }>,
    opts?: AskOptions & { default?: T },
  ): Promise<T>;
  confirm(message: string, defaultValue?: boolean, opts?: AskOptions): Promise<boolean>;
}

export function createPrompter(io: IO): Prompter {
  const context = (signal?: AbortSignal) => {
    const ctx = {
      input: io.streams.stdin,
      output: io.streams.stderr,
      clearPromptOnDone: false,
      ...(signal ? { signal } : {}),
    };
    // A prompt closed from outside (a gate decided elsewhere) is taken off the screen: a menu left there
    // looks alive, and keys typed at it would go nowhere. inquirer reads the flag when it finishes.
    signal?.addEventListener('abort', () => void (ctx.clearPromptOnDone = true), { once: true });
    return ctx as never;
  };
  const load = () => import('@inquirer/prompts');
  return {
    async input(message, opts = {}) {
      const { input } = await load();
      return input(
        { message, ...(opts.default !== undefined ? { default: opts.default } : {}), required: opts.required ?? false },
        context(opts.signal),
      );
    },
    async password(message, opts = {}) {
      const { password } = await load();
      return password(
        { message, mask: '•', ...(opts.validate ? { validate: opts.validate } : {}) },
        context(opts.signal),
      );
    },
    async select(message, choices, opts = {}) {
      const { select } = await load();
      return select(
        { message, choices, pageSize: 10, ...(opts.default !== undefined ? { default: opts.default } : {}) },
        context(opts.signal),
      );
    },
    async confirm(message, defaultValue = false, opts = {}) {
      const { confirm } = await load();
      return confirm({ message, default: defaultValue }, context(opts.signal));
    },
  };
}
