// `orc sandbox clock`: the virtual time, the mode, and the runs still moving.
import type { Context } from '../context.js';
import { oneLine } from '../../lib/sanitize.js';
import type { ClockView } from '../../contract/sandbox-control.js';
import { adminCall, clockLine } from './admin-call.js';

export default async function clock(ctx: Context): Promise<number> {
  const c = await adminCall<ClockView>(ctx, 'GET', '/_sandbox/clock');
  if (ctx.io.json) return (ctx.io.writeJson(c), 0);
  ctx.io.out(oneLine(clockLine(c)));
  for (const r of c.runs)
    ctx.io.out(
      [r.id, r.status, r.stage, r.gate_pending ? `gate ${r.gate_pending}` : ''].map(oneLine).join('\t').trimEnd(),
    );
  return 0;
}
