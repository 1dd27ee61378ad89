// `orc gate approve <run> <gate>`
import type { Context } from '../context.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { approve as def } from './command.js';
import { UsageError } from '../../exit/errors.js';
import { pickRun } from '../pick.js';
import { decide } from './decide.js';

export default async function approve(
  ctx: Context,
  [run, gate]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  // Left out at a terminal: a run waiting at a gate is picked, and the gate is the one it waits at.
  if (run === undefined) {
    const picked = await pickRun(ctx, 'gated', 'gate approve');
    return decide(ctx, picked.id, picked.gate_pending!, 'approve', flags);
  }
  if (gate === undefined)
    throw Object.assign(new UsageError(`missing <gate>: \`orc gate approve ${run} <gate>\` (idea, brand or final)`), {
      field: '<gate>',
    });
  return decide(ctx, run, gate, 'approve', flags);
}
