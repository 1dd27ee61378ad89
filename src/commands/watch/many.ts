// `orc watch <run> <run>…` and `orc watch --all`: several runs in one view. At a terminal a line per run
// (stage and progress, a gate pending, the outcome), redrawn in place; piped or --accessible, a line per
// change with the run's id; under --json, NDJSON envelopes (each carries its run_id). A gate pending on any
// run is approved (--approve), asked about in turn (one prompt at a time), waited on, or ends the watch
// (exit 6), as for one run. The exit code is the worst outcome among the runs.
import type { Api } from '../../api/index.js';
import type { Run } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { EXIT } from '../../exit/errors.js';
import { sanitizeLine } from '../../lib/sanitize.js';
import { loadStyle } from '../../ui/style.js';
import { ManyRenderer } from '../../ui/watch/many.js';
import { watchRun, type WatchEvent } from '../../watch/engine.js';
import type { GateDesk, Policy } from './gates.js';
import { WatchSession } from './session.js';
import { parseFollowFlags, streamKnobs, type FollowFlags } from './follow.js';

/** Worse first: a failure, a run that ended badly, a gate no one decided, the time running out, all well. */
const SEVERITY = [EXIT.failure, EXIT.runEnded, EXIT.gatePending, EXIT.timedOut, EXIT.ok];
const worst = (codes: number[]) => SEVERITY.find((c) => codes.includes(c)) ?? EXIT.ok;

export async function followMany(ctx: Context, given: string[], all: boolean, flags: FollowFlags): Promise<number> {
  const rules = parseFollowFlags(ctx, flags);
  const knobs = streamKnobs(ctx);
  const api = await ctx.api();
  api.http.deadlinePerRequest();
  const io = ctx.io;
  const ids = all ? await withMovingRuns(api, given) : [...new Set(given)];
  if (all && ids.length === 0) {
    io.info('orc: no run is moving; nothing to watch');
    return EXIT.ok;
  }
  const mode = io.json ? 'ndjson' : io.interactiveOutput && !io.accessible ? 'tty' : 'plain';
  const view = new ManyRenderer(io, await loadStyle(io), ids, mode);
  await view.start();
  const watch = new ManyRunWatch(ctx, api, ids, flags, rules, view);
  await watch.run(knobs);
  return watch.outcome();
}

/** --all: the runs given, then every run moving (running or at a gate), newest first. */
async function withMovingRuns(api: Api, given: string[]): Promise<string[]> {
  const moving: Run[] = [];
  for (const status of ['running', 'awaiting_approval'] as const)
    for await (const r of api.runs.listAll({ status, limit: 100 })) moving.push(r);
  moving.sort((a, b) => b.created_at.localeCompare(a.created_at));
  return [...new Set([...given, ...moving.map((r) => r.id)])];
}

/** What the summary line calls the runs that ended with each code. */
const SUMMARY = [
  [EXIT.ok, 'accepted'],
  [EXIT.runEnded, 'ended badly'],
  [EXIT.gatePending, 'waiting at a gate'],
  [EXIT.timedOut, 'still going when --max-wait ran out'],
  [EXIT.failure, 'lost'],
] as const;

/** Several runs followed at once, each to its own exit code; the watch's code is the worst of them. */
class ManyRunWatch {
  private readonly session: WatchSession;
  private readonly desk: GateDesk;
  private readonly codes = new Map<string, number>();
  /** Each run's own stop: "stop watching" at its gate, or --on-gate exit, ends that run's watch only. */
  private readonly own: Map<string, AbortController>;

  constructor(
    private readonly ctx: Context,
    private readonly api: Api,
    private readonly ids: string[],
    flags: FollowFlags,
    rules: { policy: Policy; approve: Set<string> },
    private readonly view: ManyRenderer,
  ) {
    this.own = new Map(ids.map((id) => [id, new AbortController()]));
    this.session = new WatchSession(ctx, api, flags);
    this.desk = this.session.desk(rules, view, (id) => this.stopRun(id, EXIT.gatePending));
  }

  async run(knobs: { idleTimeoutMs: number; maxReconnects: number }): Promise<void> {
    try {
      await Promise.all(this.ids.map((id) => this.followOne(id, knobs)));
    } finally {
      await this.session.drained();
      this.session.close();
      this.view.finish();
    }
  }

  private stopRun(id: string, code: number): void {
    this.codes.set(id, code);
    this.own.get(id)!.abort();
  }

  /** The run's name into the view (read once; again after `forget`), never failing or holding up the watch. */
  private readName(id: string): void {
    if (this.ctx.io.json) return;
    void this.session.names.one(id).then((name) => this.view.named(id, name));
  }

  private async followOne(id: string, knobs: { idleTimeoutMs: number; maxReconnects: number }): Promise<void> {
    const signal = AbortSignal.any([this.own.get(id)!.signal, this.session.signal]);
    try {
      // Where the run stands first (what is no news to --notify), then its name into the view.
      await this.desk.watching(id);
      this.readName(id);
      for await (const ev of watchRun(this.api, id, { signal, ...knobs })) {
        if (await this.onEvent(id, ev)) return;
      }
    } catch (err) {
      if (signal.aborted) return;
      this.codes.set(id, EXIT.failure);
      // Not only the service's words: a network error may quote a header, which no JSON boundary cleaned.
      this.view.note(id, `lost: ${sanitizeLine((err as Error).message)}`);
    }
  }

  /** An event drawn and the gate desk told; true once this run's watch is over. */
  private async onEvent(id: string, ev: WatchEvent): Promise<boolean> {
    this.view.handle(id, ev);
    if (ev.kind === 'event' && ev.event.type === 'run.gate_resolved') {
      // A decision may carry a spec change (a new name): read the name again.
      this.session.names.forget(id);
      this.readName(id);
      await this.desk.resolved(id, ev.event.data.gate, ev.event.data.decision);
    }
    const atGate = ev.kind === 'gate_pending' ? await this.desk.opened(id, ev.gate) : undefined;
    if (atGate === 'exit') {
      this.stopRun(id, EXIT.gatePending);
      return true;
    }
    if (ev.kind !== 'ended') return false;
    await this.desk.ended(id, ev.status);
    this.codes.set(id, ev.status === 'accepted' ? EXIT.ok : EXIT.runEnded);
    return true;
  }

  /** The exit code once every run's watch is over, with a line on how many ended which way. */
  outcome(): number {
    const { session, codes, ids, ctx } = this;
    session.rethrowPromptError();
    if (session.interrupted && !session.timedOut) {
      ctx.io.info('orc: stopped watching; the runs go on. Watch them again with `orc watch <run> <run>…`.');
      return EXIT.interrupted;
    }
    for (const id of ids) if (!codes.has(id)) codes.set(id, session.timedOut ? EXIT.timedOut : EXIT.ok);
    if (!ctx.io.json) {
      const count = (c: number) => ids.filter((id) => codes.get(id) === c).length;
      const parts = SUMMARY.map(([c, w]) => (count(c) ? `${count(c)} ${w}` : '')).filter(Boolean);
      ctx.io.info(`orc: ${parts.join(', ')}`);
    }
    return worst([...codes.values()]);
  }
}
