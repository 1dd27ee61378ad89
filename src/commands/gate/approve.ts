// `orc gate approve <run> <gate>`
import type { Context } from '../../context.js';
import { decide, type DecideFlags } from './decide.js';

export default function approve(ctx: Context, [run, gate]: string[], flags: DecideFlags): Promise<number> {
  return decide(ctx, run!, gate!, 'approve', flags);
}
