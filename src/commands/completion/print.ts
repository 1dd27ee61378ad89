// `orc completion <shell>`: the completion script for bash, zsh or fish, on stdout.
import type { Context } from '../context.js';
import { UsageError } from '../../exit/errors.js';
import { GLOBAL_FLAGS } from '../globals.js';
import { allCommands } from '../index.js';
import { TOPICS } from '../topics.js';
import { arg, type ArgsOf, type CommandDef } from '../define.js';
import type { completion as def } from './command.js';
import { bashScript, fishScript, zshScript } from './scripts.js';

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export default async function completion(ctx: Context, [shell]: ArgsOf<typeof def>): Promise<number> {
  const make = SCRIPTS[shell as keyof typeof SCRIPTS];
  if (!make) throw new UsageError(`<shell> must be bash, zsh or fish, not ${JSON.stringify(shell)}`);
  const commands = await allCommands();
  const script = make([...commands, helpCommand(commands)], GLOBAL_FLAGS);
  if (ctx.io.json) ctx.io.writeJson({ shell, script });
  else ctx.io.streams.stdout.write(script);
  return 0;
}

/** `orc help <topic|command>` as completion sees it: commander makes the command, the topics are orc's own. */
function helpCommand(commands: readonly CommandDef[]): CommandDef {
  const words = [...new Set([...TOPICS.map((t) => t.name), ...commands.map((c) => c.name)])];
  const topic = arg.optionalWord('topic', { complete: words });
  return { name: 'help', summary: 'help on a topic or a command', args: [topic], examples: [] };
}
