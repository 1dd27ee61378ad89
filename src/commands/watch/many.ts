// `orc watch <run> <run>…` and `orc watch --all`: several runs in one view. At a terminal a line per run
// (stage and progress, a gate pending, the outcome), redrawn in place; piped or --accessible, a line per
// change with the run's id; under --json, NDJSON envelopes (each carries its run_id). A gate pending on any
// run is approved (--approve), asked about in turn (one prompt at a time), waited on, or ends the watch
// (exit 6), as for one run. The exit code is the worst outcome among the runs.
import type { Run } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { EXIT } from '../../exit/errors.js';
import { sanitizeLine } from '../../lib/sanitize.js';
import { loadStyle } from '../../ui/style.js';
import { ManyRenderer } from '../../ui/watch/many.js';
import { watchRun } from '../../watch/engine.js';
import { GateDesk } from './gates.js';
import { maxWaitTimer, parseFollowFlags, streamKnobs, type FollowFlags } from './follow.js';

/** Worse first: a failure, a run that ended badly, a gate no one decided, the time running out, all well. */
const SEVERITY = [EXIT.failure, EXIT.runEnded, EXIT.gatePending, EXIT.timedOut, EXIT.ok];
const worst = (codes: number[]) => SEVERITY.find((c) => codes.includes(c)) ?? EXIT.ok;

export async function followMany(ctx: Context, given: string[], all: boolean, flags: FollowFlags): Promise<number> {
  const { policy, approve } = parseFollowFlags(ctx, flags);
  const knobs = streamKnobs(ctx);
  const api = await ctx.api();
  api.http.deadlinePerRequest();
  const io = ctx.io;
  let ids = [...new Set(given)];
  if (all) {
    const moving: Run[] = [];
    for (const status of ['running', 'awaiting_approval'] as const)
      for await (const r of api.runs.listAll({ status, limit: 100 })) moving.push(r);
    ids = [...new Set([...ids, ...moving.sort((a, b) => b.created_at.localeCompare(a.created_at)).map((r) => r.id)])];
    if (ids.length === 0) {
      io.info('orc: no run is moving; nothing to watch');
      return EXIT.ok;
    }
  }
  const mode = io.json ? 'ndjson' : io.interactiveOutput && !io.accessible ? 'tty' : 'plain';
  const view = new ManyRenderer(io, await loadStyle(io), ids, mode);
  await view.start();
  const stop = new AbortController();
  let interrupted = false;
  let promptError: unknown = null;
  const onSigint = () => {
    interrupted = true;
    stop.abort();
  };
  ctx.signal.addEventListener('abort', onSigint);
  let timedOut = false;
  const cancelMaxWait = maxWaitTimer(ctx, flags, () => {
    timedOut = true;
    stop.abort();
  });
  const codes = new Map<string, number>();
  // Each run's own stop: "stop watching" at its gate, or --on-gate exit, ends that run's watch only.
  const own = new Map(ids.map((id) => [id, new AbortController()]));
  const stopRun = (id: string, code: number) => {
    codes.set(id, code);
    own.get(id)!.abort();
  };
  const desk = new GateDesk(ctx, api, { policy, approve, bell: flags.bell !== false, signal: stop.signal }, view, {
    stopAt: (id) => stopRun(id, EXIT.gatePending),
    interrupt: onSigint,
    fail: (err) => {
      promptError = err;
      stop.abort();
    },
  });

  const followOne = async (id: string): Promise<void> => {
    const signal = AbortSignal.any([own.get(id)!.signal, stop.signal]);
    try {
      for await (const ev of watchRun(api, id, { signal, ...knobs })) {
        view.handle(id, ev);
        if (ev.kind === 'event' && ev.event.type === 'run.gate_resolved') {
          await desk.resolved(id, ev.event.data.gate, ev.event.data.decision);
        }
        const atGate = ev.kind === 'gate_pending' ? await desk.opened(id, ev.gate) : undefined;
        if (atGate === 'exit') return stopRun(id, EXIT.gatePending);
        if (ev.kind === 'ended') {
          desk.ended(id);
          codes.set(id, ev.status === 'accepted' ? EXIT.ok : EXIT.runEnded);
          return;
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      codes.set(id, EXIT.failure);
      // Not only the service's words: a network error may quote a header, which no JSON boundary cleaned.
      view.note(id, `lost: ${sanitizeLine((err as Error).message)}`);
    }
  };

  try {
    await Promise.all(ids.map(followOne));
  } finally {
    cancelMaxWait();
    ctx.signal.removeEventListener('abort', onSigint);
    stop.abort();
    view.finish();
  }
  if (promptError && !timedOut) throw promptError;
  if (interrupted && !timedOut) {
    io.info('orc: stopped watching; the runs go on. Watch them again with `orc watch <run> <run>…`.');
    return EXIT.interrupted;
  }
  for (const id of ids) if (!codes.has(id)) codes.set(id, timedOut ? EXIT.timedOut : EXIT.ok);
  const code = worst([...codes.values()]);
  if (!io.json) {
    const by = (c: number) => ids.filter((id) => codes.get(id) === c);
    const parts = [
      [EXIT.ok, 'accepted'],
      [EXIT.runEnded, 'ended badly'],
      [EXIT.gatePending, 'waiting at a gate'],
      [EXIT.timedOut, 'still going when --max-wait ran out'],
      [EXIT.failure, 'lost'],
    ] as const;
    io.info(
      `orc: ${parts
        .map(([c, w]) => (by(c).length ? `${by(c).length} ${w}` : ''))
        .filter(Boolean)
        .join(', ')}`,
    );
  }
  return code;
}
