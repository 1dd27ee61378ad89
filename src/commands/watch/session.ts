// What a watch of one run or of many shares while it lasts: the one stop every stream and question listens
// to, why it stopped (Ctrl-C, --max-wait, a question that failed), and the gate desk wired to it.
import type { Api } from '../../api/index.js';
import { RunNames } from '../../api/run-names.js';
import type { Context } from '../context.js';
import type { FlagValues } from '../define.js';
import type { FOLLOW_FLAGS } from './flags.js';
import { GateDesk, type GateHooks, type GateView, type Policy } from './gates.js';
import { Nudges } from './nudge.js';

/** What of the follow flags the session acts on. */
type SessionFlags = Pick<FlagValues<typeof FOLLOW_FLAGS>, 'maxWait' | 'bell' | 'notify' | 'onGateExec'>;

export class WatchSession {
  private readonly stop = new AbortController();
  /** Ctrl-C (at the terminal or at a question): the runs go on without us. */
  interrupted = false;
  /** --max-wait ran out first. */
  timedOut = false;
  private promptError: unknown = null;
  private nudges: Nudges | undefined;
  /** The runs' names, read once for every part of the watch that shows them (the view, the notifications). */
  readonly names: RunNames;
  private readonly cancelMaxWait: () => void;
  private readonly onSigint = () => {
    this.interrupted = true;
    this.stop.abort();
  };

  constructor(
    private readonly ctx: Context,
    private readonly api: Api,
    private readonly flags: SessionFlags,
  ) {
    this.names = new RunNames(api);
    // --max-wait, on the context's clock.
    this.cancelMaxWait =
      flags.maxWait === undefined
        ? () => {}
        : ctx.clock.timer(flags.maxWait * 1000, () => {
            this.timedOut = true;
            this.stop.abort();
          });
    ctx.signal.addEventListener('abort', this.onSigint);
  }

  /** Aborted when the whole watch stops. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** The desk deciding this watch's gates: Ctrl-C at a question or a failed question stops the whole watch;
   * `stopAt` says what "stop watching" at one run's question does. */
  desk(rules: { policy: Policy; approve: Set<string> }, view: GateView, stopAt: GateHooks['stopAt']): GateDesk {
    const { api } = this;
    this.nudges = Nudges.start(this.ctx, api, this.names, this.flags);
    const opts = { ...rules, nudges: this.nudges, signal: this.stop.signal };
    return new GateDesk(this.ctx, api, opts, view, {
      stopAt,
      interrupt: this.onSigint,
      fail: (err) => {
        this.promptError = err;
        this.stop.abort();
      },
    });
  }

  /** Stop the whole watch now (its streams and any question); what happened is for the caller to keep. */
  stopAll(): void {
    this.stop.abort();
  }

  /** A question that failed ends the watch with its error, unless --max-wait had already ended it. */
  rethrowPromptError(): void {
    if (this.promptError && !this.timedOut) throw this.promptError;
  }

  /** The gate hooks still running have ended (each is bounded), unless Ctrl-C stopped the watch: then they
   * go on alone (in process groups of their own). */
  async drained(): Promise<void> {
    if (!this.interrupted) await this.nudges?.drained();
  }

  /** The watch is over: no timer, no Ctrl-C handler, nothing still listening. */
  close(): void {
    this.cancelMaxWait();
    this.ctx.signal.removeEventListener('abort', this.onSigint);
    this.stop.abort();
  }
}
