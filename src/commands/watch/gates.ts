// The one place gates are decided while watching, for one run or many: approved as told (--approve), left to
// someone else (wait), the end of that run's watch (exit), or asked here, one question at a time, in the
// background while the events keep coming; a question is withdrawn when its gate is decided elsewhere or its
// run ends, and Ctrl-C at a question stops the whole watch (exit 130), the runs going on.
import type { Api } from '../../api/index.js';
import type { Context } from '../context.js';
import { ApiError } from '../../api/errors.js';
import type { Nudges } from './nudge.js';

export type Policy = 'prompt' | 'wait' | 'exit';

/** Where the desk says what happened to a gate, and which it leaves alone while a question is asked. */
export interface GateView {
  note(runId: string, text: string): void;
  pause(): void;
  resume(): void;
  /** Whether the view draws a run's scorecard as it is scored (the final gate's question then need not). */
  readonly drawsScores: boolean;
}

/** What a question's answer does to the watch. */
export interface GateHooks {
  /** "Stop watching" was chosen: this run's watch ends, its gate still pending (exit 6). */
  stopAt(runId: string, gate: string): void;
  /** Ctrl-C at the question. */
  interrupt(): void;
  /** Something went wrong that the question could not say. */
  fail(err: unknown): void;
}

interface Question {
  runId: string;
  gate: string;
  abort: AbortController;
  /** Why the question was withdrawn, said when it is (null: the watch is stopping). */
  why: string | null;
}

export class GateDesk {
  private asking: Promise<void> = Promise.resolve();
  private readonly questions = new Map<string, Question>();
  private readonly waiting = new Map<string, string>();
  /** Decisions this watch's stream has shown, per run and gate: which round of a gate an opening is. */
  private readonly decisionsSeen = new Map<string, number>();

  constructor(
    private readonly ctx: Context,
    private readonly api: Api,
    private readonly opts: { policy: Policy; approve: Set<string>; nudges: Nudges; signal: AbortSignal },
    private readonly view: GateView,
    private readonly hooks: GateHooks,
  ) {}

  /** The gate a run waits at, as far as its stream has told (for what Ctrl-C says). */
  waitingAt(runId: string): string | null {
    return this.waiting.get(runId) ?? null;
  }

  /** A gate opened: 'exit' when this run's watch ends here (--on-gate exit, --until-gate, --max-wait). */
  async opened(runId: string, gate: string): Promise<'exit' | undefined> {
    // History replays old gates too: act only on the gate the run is waiting at now, and at it only on the
    // round it waits in (a final rejected twice replays three openings; the first two were decided).
    if ((await this.api.runs.retrieve(runId)).gate_pending !== gate) return undefined;
    if (await this.anEarlierRound(runId, gate)) return undefined;
    this.waiting.set(runId, gate);
    if (this.opts.approve.has(gate)) {
      await approveAsAsked(this.ctx, this.api, runId, gate, (text) => this.view.note(runId, text));
      return undefined;
    }
    const round = this.decisionsSeen.get(`${runId}\u0000${gate}`) ?? 0;
    await this.opts.nudges.gateOpened(runId, gate, round, (text) => this.view.note(runId, text));
    if (this.opts.policy === 'exit') return 'exit';
    if (this.opts.policy === 'wait') {
      const how = `\`orc gate approve ${runId} ${gate}\``;
      this.view.note(runId, `gate ${gate} awaits a decision; waiting for someone to decide (${how})`);
      return undefined;
    }
    const asked = this.questions.get(runId);
    if (asked && asked.gate === gate && !asked.abort.signal.aborted) return undefined;
    const question: Question = { runId, gate, abort: new AbortController(), why: null };
    this.questions.set(runId, question);
    this.asking = this.asking.then(() => this.ask(question));
    return undefined;
  }

  /** A gate was decided: a question about it is withdrawn if the decision left it no longer pending (history
   * replays a gate's earlier decisions too, a brand rejected before this watch began). */
  async resolved(runId: string, gate: string | undefined, decision: string | undefined): Promise<void> {
    const key = `${runId}\u0000${gate}`;
    this.decisionsSeen.set(key, (this.decisionsSeen.get(key) ?? 0) + 1);
    if (this.waiting.get(runId) === gate) this.waiting.delete(runId);
    const question = this.questions.get(runId);
    if (!question || question.gate !== gate) return;
    if ((await this.api.runs.retrieve(runId)).gate_pending === gate) {
      this.waiting.set(runId, gate);
      return;
    }
    this.withdraw(question, `gate ${gate} was ${decision ?? 'decided'} elsewhere`);
  }

  /**
   * Whether this opening of a gate is a round already decided: the gate's history (CONTRACT.md, Gate history)
   * holds more decisions than the stream has shown so far. A watch reads the stream from its start, so by the
   * opening of the round now pending every earlier decision has been shown. Without a history, as before.
   */
  private async anEarlierRound(runId: string, gate: string): Promise<boolean> {
    const history = (await this.api.gates.list(runId)).find((g) => g.name === gate)?.history;
    return history !== undefined && (this.decisionsSeen.get(`${runId}\u0000${gate}`) ?? 0) < history.length;
  }

  /** Before a run's stream opens (see Nudges.watching). */
  watching(runId: string): Promise<void> {
    return this.opts.nudges.watching(runId);
  }

  /** The run ended (its status): nothing is left to ask about it, and the person is told (--notify). */
  async ended(runId: string, status: string): Promise<void> {
    this.waiting.delete(runId);
    const question = this.questions.get(runId);
    if (question) this.withdraw(question, 'the run ended');
    await this.opts.nudges.runEnded(runId, status, (text) => this.view.note(runId, text));
  }

  /** Every question asked or waiting its turn has been answered or withdrawn. */
  settled(): Promise<void> {
    return this.asking;
  }

  private withdraw(question: Question, why: string): void {
    question.why = why;
    question.abort.abort();
  }

  private async ask(q: Question): Promise<void> {
    const signal = AbortSignal.any([q.abort.signal, this.opts.signal]);
    try {
      if (signal.aborted || (await this.api.runs.retrieve(q.runId)).gate_pending !== q.gate) return;
      this.view.pause();
      try {
        const { decideAtPrompt } = await import('./gate-prompt.js');
        const outcome = await decideAtPrompt(this.ctx, this.api, q.runId, q.gate, signal, {
          watching: true,
          scoresShown: this.view.drawsScores,
        });
        if (outcome === 'stop') this.hooks.stopAt(q.runId, q.gate);
      } finally {
        this.view.resume();
      }
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'AbortPromptError') {
        if (q.why) this.view.note(q.runId, q.why);
      } else if (name === 'ExitPromptError') this.hooks.interrupt();
      else this.hooks.fail(err);
    } finally {
      if (this.questions.get(q.runId) === q) this.questions.delete(q.runId);
    }
  }
}

/** `--approve <gate>`: the gate approved as the run reaches it; a final gate whose scorecard did not pass is
 * approved as told, and said on stderr (a script's log should show what was waved through). */
export async function approveAsAsked(
  ctx: Context,
  api: Api,
  runId: string,
  gate: string,
  note: (text: string) => void,
): Promise<void> {
  const doubt = gate === 'final' ? await (await import('./final-doubt.js')).finalGateDoubt(api, runId) : null;
  try {
    await api.gates.approve(runId, gate);
    note(`approved gate ${gate} (--approve)`);
    if (doubt) ctx.io.warn(`approved gate final of ${runId} although ${doubt}`);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'gate_not_pending')) throw err;
    note(`gate ${gate} was decided elsewhere`);
  }
}
