// `orc gate reject <run> <gate>`
import type { Context } from '../../context.js';
import { decide, type DecideFlags } from './decide.js';

export default function reject(ctx: Context, [run, gate]: string[], flags: DecideFlags): Promise<number> {
  return decide(ctx, run!, gate!, 'reject', flags);
}
