// `orc gate reject <run> <gate>`
import type { Context } from '../../context.js';
import type { ArgsOf, FlagsOf } from '../../cli/spec.js';
import type { reject as spec } from './command.js';
import { decide } from './decide.js';

export default function reject(ctx: Context, [run, gate]: ArgsOf<typeof spec>, flags: FlagsOf<typeof spec>): Promise<number> {
  return decide(ctx, run, gate, 'reject', flags);
}
