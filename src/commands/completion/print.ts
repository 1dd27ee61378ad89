// `orc completion <shell>`: the completion script for bash, zsh or fish, on stdout.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { GLOBAL_FLAGS } from '../../cli/globals.js';
import { allCommands } from '../index.js';
import type { ArgsOf } from '../../cli/spec.js';
import type { completion as spec } from './command.js';
import { bashScript, fishScript, zshScript } from './scripts.js';

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export default async function completion(ctx: Context, [shell]: ArgsOf<typeof spec>): Promise<number> {
  const make = SCRIPTS[shell as keyof typeof SCRIPTS];
  if (!make) throw new UsageError(`<shell> must be bash, zsh or fish, not ${JSON.stringify(shell)}`);
  const script = make(await allCommands(), GLOBAL_FLAGS);
  if (ctx.io.json) ctx.io.writeJson({ shell, script });
  else ctx.io.streams.stdout.write(script);
  return 0;
}
