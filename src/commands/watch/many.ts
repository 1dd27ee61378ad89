// `orc watch <run> <run>…` and `orc watch --all`: several runs in one view. At a terminal a line per run
// (stage and progress, a gate pending, the outcome), redrawn in place; piped or --accessible, a line per
// change with the run's id; under --json, NDJSON envelopes (each carries its run_id). A gate pending on any
// run is approved (--approve), asked about in turn (one prompt at a time), waited on, or ends the watch
// (exit 6), as for one run. The exit code is the worst outcome among the runs.
import { TERMINAL_STATUSES } from '../../contract/events.js';
import type { Run } from '../../contract/schemas.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../errors.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { loadStyle } from '../../ui/style.js';
import { describeEvent } from '../../ui/watch/describe.js';
import { watchRun, type WatchEvent } from '../../watch/engine.js';
import { approveAsAsked, maxWaitTimer, parseFollowFlags, streamKnobs, type FollowFlags } from './follow.js';

interface Row {
  id: string;
  stage: string;
  percent: number;
  gate: string | null;
  outcome: string | null;
}

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
    for (const status of ['running', 'awaiting_approval'] as const) for await (const r of api.runs.listAll({ status, limit: 100 })) moving.push(r);
    ids = [...new Set([...ids, ...moving.sort((a, b) => b.created_at.localeCompare(a.created_at)).map((r) => r.id)])];
    if (ids.length === 0) {
      io.info('orc: no run is moving; nothing to watch');
      return EXIT.ok;
    }
  }
  const style = await loadStyle(io);
  const drawn = io.interactiveOutput && !io.json && !io.accessible;
  const rows = new Map<string, Row>(ids.map((id) => [id, { id, stage: '…', percent: 0, gate: null, outcome: null }]));
  const region = drawn ? new (await import('../../ui/live-region.js')).LiveRegion(io.streams.stdout, () => io.columns) : null;
  const width = Math.max(...ids.map((id) => id.length));
  const draw = () => {
    if (!region) return;
    region.render(
      [...rows.values()].map((r) => {
        const state = r.outcome
          ? r.outcome === 'accepted'
            ? style.green(`✓ ${r.outcome}`)
            : style.red(`✗ ${r.outcome}`)
          : r.gate
            ? style.yellow(`‖ gate ${r.gate} pending`)
            : `${sanitizeLine(r.stage)} ${String(r.percent).padStart(3)}%`;
        return `${r.id.padEnd(width)}  ${state}`;
      }),
    );
  };
  const say = (id: string, text: string) => (region ? region.print([`${id}  ${text}`]) : io.out(`${id} ${text}`));
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  ctx.signal.addEventListener('abort', onSigint);
  let timedOut = false;
  const cancelMaxWait = maxWaitTimer(ctx, flags, () => {
    timedOut = true;
    stop.abort();
  });
  const codes = new Map<string, number>();
  // One question at a time: the prompts of several runs wait their turn.
  let asking: Promise<unknown> = Promise.resolve();

  const onGate = async (id: string, gate: string, own: AbortController): Promise<void> => {
    const run = await api.runs.retrieve(id);
    if (run.gate_pending !== gate) return;
    if (approve.has(gate)) return approveAsAsked(ctx, api, id, gate, (text) => say(id, text));
    if (policy === 'exit') {
      codes.set(id, EXIT.gatePending);
      own.abort();
      return;
    }
    if (policy === 'wait') return say(id, `gate ${gate} awaits a decision (\`orc gate approve ${id} ${gate}\`)`);
    asking = asking.then(async () => {
      if ((await api.runs.retrieve(id)).gate_pending !== gate || stop.signal.aborted) return;
      region?.pause();
      try {
        const { decideAtPrompt } = await import('./gate-prompt.js');
        const outcome = await decideAtPrompt(ctx, api, id, gate, stop.signal);
        if (outcome === 'stop') {
          codes.set(id, EXIT.gatePending);
          own.abort();
        }
      } finally {
        region?.resume();
        draw();
      }
    });
    await asking;
  };

  const followOne = async (id: string): Promise<void> => {
    const own = new AbortController();
    stop.signal.addEventListener('abort', () => own.abort(), { once: true });
    const row = rows.get(id)!;
    try {
      for await (const ev of watchRun(api, id, { signal: own.signal, ...knobs })) {
        handle(id, row, ev);
        if (ev.kind === 'gate_pending') await onGate(id, ev.gate, own);
        if (ev.kind === 'ended') {
          codes.set(id, ev.status === 'accepted' ? EXIT.ok : EXIT.runEnded);
          return;
        }
      }
    } catch (err) {
      codes.set(id, EXIT.failure);
      say(id, `lost: ${sanitizeLine((err as Error).message)}`);
    }
  };

  const handle = (id: string, row: Row, ev: WatchEvent) => {
    if (ev.kind === 'event' || ev.kind === 'log') {
      if (io.json) io.streams.stdout.write(io.jsonLine(ev.raw ?? ev.event, ev.text));
    }
    if (ev.kind === 'event') {
      const d = ev.event.data;
      const type = ev.event.type;
      if (type === 'run.stage_changed') {
        const next = d.stage ?? row.stage;
        const tenth = Math.floor((d.percent ?? 0) / 10);
        if (!io.json && !region && (next !== row.stage || tenth > Math.floor(row.percent / 10))) say(id, `${sanitizeLine(next)} ${tenth * 10}%`);
        row.stage = next;
        row.percent = d.percent ?? row.percent;
      } else {
        if (type === 'run.gate_pending') row.gate = d.gate ?? null;
        if (type === 'run.gate_resolved') row.gate = null;
        if (TERMINAL_STATUSES.has(type.slice(4))) row.outcome = type.slice(4);
        if (!io.json) say(id, describeEvent(ev.event));
      }
      draw();
    }
  };

  draw();
  try {
    await Promise.all(ids.map(followOne));
  } finally {
    cancelMaxWait();
    ctx.signal.removeEventListener('abort', onSigint);
    region?.close({ keep: true });
  }
  if (ctx.signal.aborted && !timedOut) return EXIT.interrupted;
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
    io.info(`orc: ${parts.map(([c, w]) => (by(c).length ? `${by(c).length} ${w}` : '')).filter(Boolean).join(', ')}`);
  }
  return code;
}
