// `orc sandbox trigger <event-kind>`: the sandbox produces that event for real (the pipeline, the stream,
// signed webhooks); without --run, on a new fixture run. The run id goes to stdout.
import type { ArgsOf, FlagsOf } from '../../cli/spec.js';
import { EVENT_KINDS } from '../../contract/events.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { adminCall } from './admin-call.js';
import type { trigger as spec } from './command.js';

export default async function trigger(ctx: Context, [kind]: ArgsOf<typeof spec>, flags: FlagsOf<typeof spec>): Promise<number> {
  if (!(EVENT_KINDS as readonly string[]).includes(kind)) throw new UsageError(`<event-kind> must be one of ${EVENT_KINDS.join(', ')}, not ${JSON.stringify(kind)}`);
  const out = await adminCall<{ run: { id: string; status: string; stage: string }; event: { id: string; type: string } }>(ctx, 'POST', '/_sandbox/trigger', {
    kind,
    ...(flags.run !== undefined ? { run: flags.run } : {}),
    ...(flags.stage !== undefined ? { stage: flags.stage } : {}),
    ...(flags.gate !== undefined ? { gate: flags.gate } : {}),
    ...(flags.error !== undefined ? { error: flags.error } : {}),
    ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
    ...(flags.notPassed ? { passed: false } : {}),
  });
  if (ctx.io.json) return ctx.io.writeJson(out), 0;
  ctx.io.out(sanitizeLine(out.run.id));
  ctx.io.info(`${sanitizeLine(out.event.type)} (${sanitizeLine(out.event.id)}): ${sanitizeLine(out.run.id)} is ${sanitizeLine(out.run.status)} at ${sanitizeLine(out.run.stage)}`);
  return 0;
}
