// A spinner on stderr for a person at a terminal (ora, loaded only then); one plain line otherwise.
import type { IO } from './io.js';

export interface Spinner {
  succeed(text: string): void;
  fail(text: string): void;
}

export async function startSpinner(io: IO, text: string): Promise<Spinner> {
  if (!io.animate) {
    io.info(`orc: ${text}`);
    return { succeed: (t) => io.info(`orc: ${t}`), fail: (t) => io.info(`orc: ${t}`) };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: io.streams.stderr as NodeJS.WriteStream }).start();
  return { succeed: (t) => void spinner.succeed(t), fail: (t) => void spinner.fail(t) };
}
