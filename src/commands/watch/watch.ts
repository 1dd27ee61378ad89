// `orc watch <run>`: the live view of a run, with its gates decided right there.
import type { Context } from '../../context.js';
import type { ArgsOf, FlagsOf } from '../../cli/spec.js';
import type { watch as spec } from './command.js';
import { pickRun } from '../pick.js';
import { follow } from './follow.js';

export default async function watch(ctx: Context, [runId]: ArgsOf<typeof spec>, flags: FlagsOf<typeof spec>): Promise<number> {
  return follow(ctx, runId ?? (await pickRun(ctx, 'moving', 'watch')).id, flags);
}
