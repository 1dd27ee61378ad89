// `orc gate approve <run> <gate>`
import type { Context } from '../../context.js';
import type { ArgsOf, FlagsOf } from '../../cli/spec.js';
import type { approve as spec } from './command.js';
import { decide } from './decide.js';

export default function approve(ctx: Context, [run, gate]: ArgsOf<typeof spec>, flags: FlagsOf<typeof spec>): Promise<number> {
  return decide(ctx, run, gate, 'approve', flags);
}
