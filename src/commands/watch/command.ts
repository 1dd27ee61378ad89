// `orc watch <run>`: the live view of a run, with its gates decided right there.
import type { Context } from '../../context.js';
import { follow, type FollowFlags } from './follow.js';

export default function watch(ctx: Context, [runId]: string[], flags: FollowFlags): Promise<number> {
  return follow(ctx, runId!, flags);
}
