// `orc gate approve|reject <run> <gate>`: one decision. A gate that is not pending is exit 3 with its actual state.
import { ApiError } from '../../api/errors.js';
import type { Api } from '../../api/index.js';
import { GATE_NAMES, TERMINAL_STATUSES } from '../../contract/events.js';
import type { Context } from '../context.js';
import { RetoldError, UsageError, exitCodeOf } from '../../exit/errors.js';
import { orDash } from '../../ui/format.js';
import { oneLine } from '../../lib/sanitize.js';
import { readNotes } from './notes.js';
import { didYouMean } from '../../lib/suggest.js';

export interface DecideFlags {
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
  const notes = await readNotes(ctx, gate, flags, decision === 'reject');
  const api = await ctx.api();
  try {
    const result =
      decision === 'approve'
        ? await api.gates.approve(runId, gate, notes)
        : await api.gates.reject(runId, gate, notes!);
    if (ctx.io.json) ctx.io.writeJson(result);
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
