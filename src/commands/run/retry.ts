// `orc run retry <run>`: a new ship-mode run from the App Spec the old run has, changed as asked (--set, --unset,
// --file, as `orc spec edit` takes them): the way on for a run that failed or was rejected.
import { ApiError } from '../../api/errors.js';
import type { Spec } from '../../app-spec/document.js';
import type { RunCreateParams } from '../../contract/schemas.js';
import { RefusedError } from '../../exit/errors.js';
import { patchPaths, specPatch } from '../../app-spec/document.js';
import type { Context } from '../context.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { retry as def } from './command.js';
import { changedSpec, refusal } from '../spec/editor-loop.js';
import { readFlagChange } from '../spec/flag-change.js';

export default async function retry(
  ctx: Context,
  [oldId]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const change = await readFlagChange(ctx, flags);
  const api = await ctx.api();
  await api.runs.retrieve(oldId); // a run that does not exist is told as such, not as a run without a spec
  const before = await specOf(ctx, oldId);
  const after = changedSpec(before, change.apply);
  const changed = patchPaths(specPatch(before, after));
  // The same retry twice (a script run again, a dropped answer) makes one run: the key is the old run and the
  // spec sent, unless the user gives one.
  const idempotencyKey = flags.idempotencyKey ?? retryKey(oldId, after);
  let run;
  try {
    run = await api.runs.create({ mode: 'ship', source: after } as RunCreateParams, { idempotencyKey });
  } catch (err) {
    throw err instanceof ApiError && err.status === 400 ? refusal(err, oldId) : err;
  }
  const edited = changed.length ? ` (changed: ${changed.join(', ')})` : '';
  ctx.io.info(
    run.replayed
      ? `${run.id} was already made from the App Spec of ${oldId}${edited}; nothing new was made. Follow it with \`orc watch ${run.id}\`.`
      : `Created ${run.id} from the App Spec of ${oldId}${edited}. Follow it with \`orc watch ${run.id}\`.`,
  );
  if (ctx.io.json) ctx.io.writeJson({ ...run, retry_of: oldId });
  else ctx.io.out(run.id);
  return 0;
}

/** A key for the create that names what it is: a retry of this run with this spec (within the 255 characters an
 * Idempotency-Key may have). */
function retryKey(oldId: string, spec: Spec): string {
  const { createHash } = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  const digest = createHash('sha256').update(JSON.stringify(spec)).digest('base64url').slice(0, 22);
  return `orc-retry-${oldId.slice(0, 200)}-${digest}`;
}

/** The old run's App Spec; a run that has none yet (404 for its spec, the run itself found) is exit 3. */
async function specOf(ctx: Context, runId: string): Promise<Spec> {
  const api = await ctx.api();
  try {
    return (await api.spec.retrieve(runId)) as Spec;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw new RefusedError(`run ${runId} has no App Spec yet; nothing was created`);
    throw err;
  }
}
