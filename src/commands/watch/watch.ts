// `orc watch <run>`: the live view of a run, with its gates decided right there.
import type { Context } from '../context.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { watch as def } from './command.js';
import { pickRun } from '../pick.js';
import { follow } from './follow.js';

export default async function watch(
  ctx: Context,
  [runs]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  if (flags.all || runs.length > 1) return (await import('./many.js')).followMany(ctx, runs, Boolean(flags.all), flags);
  return follow(ctx, runs[0] ?? (await pickRun(ctx, 'moving', 'watch')).id, flags);
}
