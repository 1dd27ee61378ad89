// Following a run to its end: the engine's events to a renderer, gates approved, asked, waited on or
// stopped at, and the outcome as an exit code (CONTRACT.md): 0 accepted, 5 rejected/failed/canceled,
// 6 a gate pending with no one to ask, 7 --max-wait ran out first, 1 the stream lost for good, 130 Ctrl-C.
import type { Api } from '../../api/index.js';
import { watchRunBatched, type WatchEvent, type WatchItem } from '../../watch/engine.js';
import type { Context } from '../context.js';
import { EXIT, UsageError } from '../../exit/errors.js';
import { loadStyle } from '../../ui/style.js';
import { describeEvent } from '../../ui/watch/describe.js';
import type { WatchRenderer } from '../../ui/watch/types.js';
import type { FlagValues } from '../define.js';
import type { FOLLOW_FLAGS } from './flags.js';
import type { GateDesk, Policy } from './gates.js';
import { WatchSession } from './session.js';

export type FollowFlags = FlagValues<typeof FOLLOW_FLAGS>;

/** The commands that follow from how a run ended. */
const NEXT_STEPS: Record<string, (run: string) => string[]> = {
  accepted: (run) => [`orc artifacts pull ${run}`, `orc scorecard ${run}`],
  failed: (run) => [`orc logs ${run} --failed`],
  rejected: (run) => [`orc scorecard ${run}`, `orc logs ${run}`],
};

/** What the flag kinds cannot check alone: how the flags go together, and whether anyone can be asked. */
export function parseFollowFlags(ctx: Context, flags: FollowFlags): { policy: Policy; approve: Set<string> } {
  if (flags.untilGate && flags.onGate && flags.onGate !== 'exit')
    throw new UsageError('--until-gate stops at the first pending gate; it does not go with --on-gate prompt or wait');
  // A bounded wait is for scripts and agents: a gate no one was told to approve ends it (unless told otherwise).
  const policy: Policy =
    flags.untilGate || (flags.maxWait !== undefined && !flags.onGate)
      ? 'exit'
      : ((flags.onGate as Policy | undefined) ?? (ctx.io.canPrompt ? 'prompt' : 'wait'));
  if (policy === 'prompt' && !ctx.io.canPrompt)
    throw new UsageError('--on-gate prompt needs a terminal (and no --json, --no-input or CI); use wait or exit');
  return { policy, approve: new Set(flags.approve ?? []) };
}

/** How long a stream may stay silent and how many reconnects are tried (ORC_WATCH_IDLE_TIMEOUT, ORC_WATCH_RECONNECTS). */
export function streamKnobs(ctx: Context): { idleTimeoutMs: number; maxReconnects: number } {
  const idleS = Number(ctx.env.ORC_WATCH_IDLE_TIMEOUT ?? 45);
  if (!(idleS > 0))
    throw new UsageError(
      `ORC_WATCH_IDLE_TIMEOUT must be a number of seconds above 0, not ${JSON.stringify(ctx.env.ORC_WATCH_IDLE_TIMEOUT)}`,
    );
  const reconnects = Number(ctx.env.ORC_WATCH_RECONNECTS ?? 8);
  if (!Number.isInteger(reconnects) || reconnects < 0)
    throw new UsageError(
      `ORC_WATCH_RECONNECTS must be a whole number, not ${JSON.stringify(ctx.env.ORC_WATCH_RECONNECTS)}`,
    );
  return { idleTimeoutMs: idleS * 1000, maxReconnects: reconnects };
}

/** The terminal view for a person at a terminal, else NDJSON (--json) or plain lines. */
async function makeRenderer(ctx: Context, drawn: boolean): Promise<WatchRenderer> {
  if (drawn) return new (await import('../../ui/watch/tty.js')).TtyRenderer(ctx.io, await loadStyle(ctx.io));
  if (ctx.io.json) return new (await import('../../ui/watch/ndjson.js')).NdjsonRenderer(ctx.io);
  return new (await import('../../ui/watch/plain.js')).PlainRenderer(ctx.io, { accessible: ctx.io.accessible });
}

export async function follow(ctx: Context, runId: string, flags: FollowFlags): Promise<number> {
  const rules = parseFollowFlags(ctx, flags);
  const api = await ctx.api();
  // A watch lasts as long as the run: each request it makes gets the whole --timeout, not what is left.
  api.http.deadlinePerRequest();
  // Whether the terminal view draws the run: it then shows the outcome itself, so stderr need not repeat it.
  const drawn = ctx.io.interactiveOutput && !ctx.io.json && !ctx.io.accessible;
  const renderer = await makeRenderer(ctx, drawn);
  const knobs = streamKnobs(ctx);
  return new OneRunWatch(ctx, api, runId, flags, rules, renderer, drawn).run(knobs);
}

/** One run followed: each event drawn and acted on, then the exit code of how the watch ended. */
class OneRunWatch {
  private readonly session: WatchSession;
  private readonly desk: GateDesk;
  /** The gate at which "stop watching" was chosen. */
  private stoppedAtGate: string | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly api: Api,
    private readonly runId: string,
    private readonly flags: FollowFlags,
    rules: { policy: Policy; approve: Set<string> },
    private readonly renderer: WatchRenderer,
    private readonly drawn: boolean,
  ) {
    this.session = new WatchSession(ctx, api, flags);
    const view = {
      note: (_id: string, text: string) => renderer.note(text),
      pause: () => renderer.pause(),
      resume: () => renderer.resume(),
      drawsScores: drawn,
    };
    this.desk = this.session.desk(rules, view, (_id, gate) => {
      this.stoppedAtGate = gate;
      this.session.stopAll();
    });
  }

  /** The run's name to the view (read once; again after `forget`): a name that cannot be read is none. */
  private async readName(): Promise<void> {
    if (this.renderer.named) this.renderer.named(this.runId, await this.session.names.one(this.runId));
  }

  async run(knobs: { idleTimeoutMs: number; maxReconnects: number }): Promise<number> {
    try {
      await this.desk.watching(this.runId);
      // One read before the first event, so the name heads the view (piped: before the replay ends).
      await this.readName();
      for await (const ev of watchRunBatched(this.api, this.runId, { signal: this.session.signal, ...knobs })) {
        const code = await this.onEvent(ev);
        if (code !== undefined) return code;
      }
      return await this.stopped();
    } finally {
      await this.session.drained();
      this.session.close();
      this.renderer.finish();
    }
  }

  /** An event drawn, and the gate desk told; an exit code when the watch ends here. */
  private async onEvent(ev: WatchItem): Promise<number | undefined> {
    if (ev.kind === 'logs') {
      for (const line of ev.items) this.renderer.handle(line);
      return undefined;
    }
    this.renderer.handle(ev);
    if (ev.kind === 'event' && ev.event.type === 'run.gate_resolved') {
      // A decision may carry a spec change (a new name): read the name again.
      this.session.names.forget(this.runId);
      void this.readName();
      await this.desk.resolved(this.runId, ev.event.data.gate, ev.event.data.decision);
    }
    if (ev.kind === 'gate_pending' && (await this.desk.opened(this.runId, ev.gate)) === 'exit') {
      return this.endAtGate(ev.gate);
    }
    if (ev.kind === 'ended') {
      await this.desk.ended(this.runId, ev.status);
      return this.outcome(ev);
    }
    return undefined;
  }

  /** --on-gate exit (or --until-gate, --max-wait): the gate is someone else's to decide (exit 6). */
  private endAtGate(gate: string): number {
    this.renderer.finish();
    const { runId } = this;
    const decide = `\`orc gate approve ${runId} ${gate}\` or \`orc gate reject ${runId} ${gate} --notes …\``;
    this.ctx.io.info(`orc: gate ${gate} of ${runId} awaits a decision: ${decide}`);
    return EXIT.gatePending;
  }

  /** The run ended: how, and what to do next (0 accepted, else 5). */
  private outcome(ev: Extract<WatchEvent, { kind: 'ended' }>): number {
    const { ctx, runId } = this;
    this.renderer.finish();
    if (!this.drawn) ctx.io.info(`orc: ${runId} ${describeEvent(ev.event)}`);
    // What to do next, as eas build says it (not under --json: a script knows its next step).
    const next = NEXT_STEPS[ev.status]?.(runId);
    if (next && !ctx.io.json) ctx.io.info(`next: ${next.map((c) => `\`${c}\``).join(' · ')}`);
    return ev.status === 'accepted' ? EXIT.ok : EXIT.runEnded;
  }

  /** The stream stopped before the run ended: --max-wait, "stop watching" at a question, or Ctrl-C. */
  private async stopped(): Promise<number> {
    const { ctx, runId, session } = this;
    session.rethrowPromptError();
    if (session.timedOut) return await this.ranOut();
    // Ctrl-C: the last frame stays on screen, and the run goes on without us.
    this.renderer.finish({ keepFrame: session.interrupted });
    if (this.stoppedAtGate) {
      ctx.io.info(`orc: stopped watching; gate ${this.stoppedAtGate} of ${runId} still awaits a decision`);
      return EXIT.gatePending;
    }
    if (!session.interrupted) return EXIT.ok;
    const waitingAt = this.desk.waitingAt(runId);
    if (waitingAt) {
      ctx.io.info(
        `orc: stopped watching; ${runId} waits at gate ${waitingAt}. Decide it with \`orc gate approve ${runId} ${waitingAt}\` or \`orc gate reject ${runId} ${waitingAt} --notes …\`, or watch again with \`orc watch ${runId}\`.`,
      );
    } else ctx.io.info(`orc: stopped watching; ${runId} goes on. Watch it again with \`orc watch ${runId}\`.`);
    return EXIT.interrupted;
  }

  /** --max-wait ran out: where the run is, as a last line under --json, and how to go on (exit 7). */
  private async ranOut(): Promise<number> {
    const { ctx, runId, flags } = this;
    this.renderer.finish({ keepFrame: true });
    const run = await this.api.runs.retrieve(runId);
    if (ctx.io.json)
      ctx.io.streams.stdout.write(
        ctx.io.jsonLine({ type: 'orc.max_wait', run_id: runId, max_wait_s: flags.maxWait, run }),
      );
    const where = run.gate_pending ? `waits at gate ${run.gate_pending}` : `is ${run.status} at ${run.stage}`;
    ctx.io.info(
      `orc: stopped after --max-wait ${flags.maxWait} s; ${runId} ${where} and goes on. Watch it again with \`orc watch ${runId} --max-wait …\`.`,
    );
    return EXIT.timedOut;
  }
}
