// `orc gate reject <run> <gate>`
import type { Context } from '../context.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { reject as def } from './command.js';
import { UsageError } from '../../exit/errors.js';
import { pickRun } from '../pick.js';
import { decide } from './decide.js';

export default async function reject(
  ctx: Context,
  [run, gate]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  // Left out at a terminal: a run waiting at a gate is picked, and the gate is the one it waits at.
  if (run === undefined) {
    const picked = await pickRun(ctx, 'gated', 'gate reject');
    return decide(ctx, picked.id, picked.gate_pending!, 'reject', flags);
  }
  if (gate === undefined)
    throw Object.assign(new UsageError(`missing <gate>: \`orc gate reject ${run} <gate>\` (idea, brand or final)`), {
      field: '<gate>',
    });
  return decide(ctx, run, gate, 'reject', flags);
}
