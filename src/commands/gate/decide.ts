// `orc gate approve|reject <run> <gate>`: one decision. A gate that is not pending is exit 3 with its actual state.
// A decision may carry a spec change (--set, --unset, --file): it is sent first, and the gate is decided only
// once the service has taken it, so a refused change leaves the gate as it was.
import { ApiError } from '../../api/errors.js';
import type { Api } from '../../api/index.js';
import { GATE_NAMES, TERMINAL_STATUSES } from '../../contract/events.js';
import type { Context } from '../context.js';
import { RetoldError, UsageError, exitCodeOf } from '../../exit/errors.js';
import { orDash } from '../../ui/format.js';
import { oneLine } from '../../lib/sanitize.js';
import { readNotes } from './notes.js';
import { mergePatchChanges, type PatchChange } from '../../lib/merge-patch.js';
import { didYouMean } from '../../lib/suggest.js';
import { plannedChange, sendPatch } from '../spec/editor-loop.js';
import { readFlagChange, type ChangeFlags, type FlagChange } from '../spec/flag-change.js';

export interface DecideFlags extends ChangeFlags {
  notes?: string;
  notesFile?: string;
}

export async function decide(
  ctx: Context,
  runId: string,
  gate: string,
  decision: 'approve' | 'reject',
  flags: DecideFlags,
): Promise<number> {
  // The three gates are the contract's: a slip is refused here, before anything is asked or sent.
  if (!(GATE_NAMES as readonly string[]).includes(gate))
    throw Object.assign(
      new UsageError(
        `<gate>: unknown gate ${JSON.stringify(gate)}${didYouMean(gate, GATE_NAMES)} (one of ${GATE_NAMES.join(', ')}); nothing was sent`,
      ),
      { field: '<gate>' },
    );
  if (flags.file === '-' && flags.notesFile === '-')
    throw Object.assign(new UsageError('--file - and --notes-file - cannot both read stdin; give one a file'), {
      field: '--file',
    });
  let notes = await readNotes(ctx, gate, flags, decision === 'reject');
  const change = await readFlagChange(ctx, flags);
  const api = await ctx.api();
  const changed = change.given ? await changeSpec(ctx, api, runId, gate, change) : undefined;
  // An approval without notes says what changed ("set tagline, unset keywords"); a rejection has the person's.
  if (changed?.length && notes === undefined)
    notes = changed.map((c) => `${c.op === '-' ? 'unset' : 'set'} ${c.path}`).join(', ');
  try {
    const result =
      decision === 'approve'
        ? await api.gates.approve(runId, gate, notes)
        : await api.gates.reject(runId, gate, notes!);
    if (ctx.io.json) ctx.io.writeJson(changed ? { ...result, spec_changed: changed.map((c) => c.path) } : result);
    else {
      ctx.io.out(`gate ${oneLine(result.gate.name)} ${oneLine(result.gate.state)}`);
      const n = result.gate.history?.length ?? 0;
      const nth =
        n > 1 ? ` That was decision ${n} at gate ${oneLine(result.gate.name)}: \`orc gate list\` shows them.` : '';
      ctx.io.info(`Run ${result.run.id} is ${result.run.status} at ${result.run.stage}.${nth}`);
    }
    return 0;
  } catch (err) {
    throw await explainNotPending(api, runId, gate, err);
  }
}

/** The change sent before the decision, once the gate is known to wait for one: what it changed, leaf by leaf.
 * A change the spec or the service refuses throws, and nothing is decided. */
async function changeSpec(
  ctx: Context,
  api: Api,
  runId: string,
  gate: string,
  change: FlagChange,
): Promise<PatchChange[]> {
  try {
    await api.gates.ensurePending(runId, gate);
  } catch (err) {
    throw await explainNotPending(api, runId, gate, err);
  }
  const { before, patch } = await plannedChange(api, runId, change.apply);
  const changes = mergePatchChanges(before, patch);
  if (changes.length === 0) {
    ctx.io.info(`The spec of ${runId} already reads so; nothing in it was changed.`);
    return [];
  }
  await sendPatch(api, runId, patch);
  ctx.io.info(`✓ spec of ${runId} updated: ${changes.map((c) => c.path).join(', ')}`);
  return changes;
}

/** 409 gate_not_pending: say what the gate actually is, so a script or person knows why. */
export async function explainNotPending(api: Api, runId: string, gate: string, err: unknown): Promise<unknown> {
  if (!(err instanceof ApiError)) return err;
  if (err.code === 'unknown_gate') return new RetoldError(`<gate>: ${err.message}`, exitCodeOf(err), err.hint);
  if (err.code === 'run_not_active' || err.code === 'gate_not_pending') {
    // A run that has ended has no gate to decide, whatever state its gates were left in: say that first.
    const run = await api.runs.retrieve(runId).catch(() => null);
    if (run && TERMINAL_STATUSES.has(run.status))
      return new RetoldError(
        `run ${runId} is ${oneLine(run.status)}; its gates can no longer be decided`,
        exitCodeOf(err),
        err.hint,
      );
  }
  if (err.code !== 'gate_not_pending') return err;
  const actual = (await api.gates.list(runId).catch(() => [])).find((g) => g.name === gate);
  if (!actual) return err;
  const when = actual.decided_at ? ` on ${actual.decided_at}` : '';
  const what = actual.state === 'waiting' ? 'not reached yet (waiting)' : `${actual.state}${when}`;
  return new RetoldError(
    `gate ${gate} of ${runId} is ${oneLine(what)}, not pending${actual.notes ? `; notes: ${oneLine(orDash(actual.notes))}` : ''}`,
    exitCodeOf(err),
    err.hint,
  );
}
