// `orc sandbox trigger <event-kind>`: the sandbox produces that event for real (the pipeline, the stream,
// signed webhooks); without --run, on a new fixture run. The run id goes to stdout.
import type { ArgsOf, FlagsOf } from '../define.js';
import { EVENT_KINDS } from '../../contract/events.js';
import type { Context } from '../context.js';
import { UsageError } from '../../exit/errors.js';
import { oneLine } from '../../lib/sanitize.js';
import type { TriggerParams, TriggerResult } from '../../contract/sandbox-control.js';
import { adminCall } from './admin-call.js';
import type { trigger as def } from './command.js';

export default async function trigger(
  ctx: Context,
  [kind]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  if (!(EVENT_KINDS as readonly string[]).includes(kind))
    throw new UsageError(`<event-kind> must be one of ${EVENT_KINDS.join(', ')}, not ${JSON.stringify(kind)}`);
  const out = await adminCall<TriggerResult>(ctx, 'POST', '/_sandbox/trigger', {
    kind,
    ...(flags.run !== undefined ? { run: flags.run } : {}),
    ...(flags.stage !== undefined ? { stage: flags.stage } : {}),
    ...(flags.gate !== undefined ? { gate: flags.gate } : {}),
    ...(flags.error !== undefined ? { error: flags.error } : {}),
    ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
    ...(flags.notPassed ? { passed: false } : {}),
  } satisfies TriggerParams);
  if (ctx.io.json) return (ctx.io.writeJson(out), 0);
  ctx.io.out(oneLine(out.run.id));
  ctx.io.info(
    `${oneLine(out.event.type)} (${oneLine(out.event.id)}): ${oneLine(out.run.id)} is ${oneLine(out.run.status)} at ${oneLine(out.run.stage)}`,
  );
  return 0;
}
