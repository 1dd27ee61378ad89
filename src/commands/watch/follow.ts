// Following a run to its end: the engine's events to a renderer, gates approved, asked, waited on or
// stopped at, and the outcome as an exit code (CONTRACT.md): 0 accepted, 5 rejected/failed/canceled,
// 6 a gate pending with no one to ask, 7 --max-wait ran out first, 1 the stream lost for good, 130 Ctrl-C.
import { ApiError } from '../../api/errors.js';
import type { Api } from '../../api/index.js';
import { watchRunBatched, type WatchEvent } from '../../watch/engine.js';
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../errors.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { loadStyle } from '../../ui/style.js';
import { describeEvent } from '../../ui/watch/describe.js';
import type { WatchRenderer } from '../../ui/watch/types.js';
import type { FlagValues } from '../../cli/spec.js';
import type { FOLLOW_FLAGS } from './flags.js';
import type { PromptOutcome } from './gate-prompt.js';

export type FollowFlags = FlagValues<typeof FOLLOW_FLAGS>;

type Policy = 'prompt' | 'wait' | 'exit';

/** The commands that follow from how a run ended. */
const NEXT_STEPS: Record<string, (run: string) => string[]> = {
  accepted: (run) => [`orc artifacts pull ${run}`, `orc scorecard ${run}`],
  failed: (run) => [`orc logs ${run} --failed`],
  rejected: (run) => [`orc scorecard ${run}`, `orc logs ${run}`],
};

/** What the flag kinds cannot check alone: how the flags go together, and whether anyone can be asked. */
export function parseFollowFlags(ctx: Context, flags: FollowFlags): { policy: Policy; approve: Set<string> } {
  if (flags.untilGate && flags.onGate && flags.onGate !== 'exit') throw new UsageError('--until-gate stops at the first pending gate; it does not go with --on-gate prompt or wait');
  // A bounded wait is for scripts and agents: a gate no one was told to approve ends it (unless told otherwise).
  const policy: Policy = flags.untilGate || (flags.maxWait !== undefined && !flags.onGate) ? 'exit' : ((flags.onGate as Policy | undefined) ?? (ctx.io.canPrompt ? 'prompt' : 'wait'));
  if (policy === 'prompt' && !ctx.io.canPrompt) throw new UsageError('--on-gate prompt needs a terminal (and no --json, --no-input or CI); use wait or exit');
  return { policy, approve: new Set(flags.approve ?? []) };
}

/** How long a stream may stay silent and how many reconnects are tried (ORC_WATCH_IDLE_TIMEOUT, ORC_WATCH_RECONNECTS). */
export function streamKnobs(ctx: Context): { idleTimeoutMs: number; maxReconnects: number } {
  const idleS = Number(ctx.env.ORC_WATCH_IDLE_TIMEOUT ?? 45);
  if (!(idleS > 0)) throw new UsageError(`ORC_WATCH_IDLE_TIMEOUT must be a number of seconds above 0, not ${JSON.stringify(ctx.env.ORC_WATCH_IDLE_TIMEOUT)}`);
  const reconnects = Number(ctx.env.ORC_WATCH_RECONNECTS ?? 8);
  if (!Number.isInteger(reconnects) || reconnects < 0) throw new UsageError(`ORC_WATCH_RECONNECTS must be a whole number, not ${JSON.stringify(ctx.env.ORC_WATCH_RECONNECTS)}`);
  return { idleTimeoutMs: idleS * 1000, maxReconnects: reconnects };
}

/** --max-wait: `expire` once the time is up (on the context's clock); the returned function cancels it. */
export function maxWaitTimer(ctx: Context, flags: FollowFlags, expire: () => void): () => void {
  return flags.maxWait === undefined ? () => {} : ctx.clock.timer(flags.maxWait * 1000, expire);
}

/** `--approve <gate>`: the gate approved as the run reaches it; a final gate whose scorecard did not pass is
 * approved as told, and said on stderr (a script's log should show what was waved through). */
export async function approveAsAsked(ctx: Context, api: Api, runId: string, gate: string, note: (text: string) => void): Promise<void> {
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

/** The terminal view for a person at a terminal, else NDJSON (--json) or plain lines. */
async function makeRenderer(ctx: Context, drawn: boolean): Promise<WatchRenderer> {
  if (drawn) return new (await import('../../ui/watch/tty.js')).TtyRenderer(ctx.io, await loadStyle(ctx.io));
  if (ctx.io.json) return new (await import('../../ui/watch/ndjson.js')).NdjsonRenderer(ctx.io);
  return new (await import('../../ui/watch/plain.js')).PlainRenderer(ctx.io, { accessible: ctx.io.accessible });
}

export async function follow(ctx: Context, runId: string, flags: FollowFlags): Promise<number> {
  const { policy, approve } = parseFollowFlags(ctx, flags);
  const api = await ctx.api();
  // A watch lasts as long as the run: each request it makes gets the whole --timeout, not what is left.
  api.http.deadlinePerRequest();
  // Whether the terminal view draws the run: it then shows the outcome itself, so stderr need not repeat it.
  const drawn = ctx.io.interactiveOutput && !ctx.io.json && !ctx.io.accessible;
  const renderer = await makeRenderer(ctx, drawn);
  const knobs = streamKnobs(ctx);
  const stop = new AbortController();
  let interrupted = false;
  let timedOut = false;
  const cancelMaxWait = maxWaitTimer(ctx, flags, () => {
    timedOut = true;
    active.prompt?.abort.abort();
    stop.abort();
  });
  let stoppedAtGate: string | null = null;
  // The gate the run waits at now, as far as the stream has told (for what Ctrl-C says).
  let waitingAt: string | null = null;
  let promptError: unknown = null;
  // A box, not a variable: the prompt's callbacks change it while the loop below reads it.
  const active: { prompt: { gate: string; abort: AbortController; why: string | null } | null } = { prompt: null };
  const onSigint = () => {
    interrupted = true;
    active.prompt?.abort.abort();
    stop.abort();
  };
  ctx.signal.addEventListener('abort', onSigint);
  const bell = () => {
    if (flags.bell !== false && ctx.io.interactiveOutput) ctx.io.streams.stderr.write('\u0007');
  };

  /** A gate opened: approve it, stop, wait, or ask (the prompt runs while events keep coming). */
  const onGate = async (gate: string): Promise<number | undefined> => {
    // History replays old gates too: act only on the gate the run is waiting at now.
    const run = await api.runs.retrieve(runId);
    if (run.gate_pending !== gate) return undefined;
    waitingAt = gate;
    if (approve.has(gate)) {
      await approveAsAsked(ctx, api, runId, gate, (text) => renderer.note(text));
      return undefined;
    }
    bell();
    if (policy === 'exit') {
      renderer.finish();
      ctx.io.info(`orc: gate ${gate} of ${runId} awaits a decision: \`orc gate approve ${runId} ${gate}\` or \`orc gate reject ${runId} ${gate} --notes …\``);
      return EXIT.gatePending;
    }
    if (policy === 'wait') {
      renderer.note(`gate ${gate} awaits a decision; waiting for someone to decide (\`orc gate approve ${runId} ${gate}\`)`);
      return undefined;
    }
    if (active.prompt) return undefined;
    const current = { gate, abort: new AbortController(), why: null as string | null };
    active.prompt = current;
    renderer.pause();
    const { decideAtPrompt } = await import('./gate-prompt.js');
    decideAtPrompt(ctx, api, runId, gate, current.abort.signal).then(
      (outcome: PromptOutcome) => {
        active.prompt = null;
        renderer.resume();
        if (outcome === 'stop') {
          stoppedAtGate = gate;
          stop.abort();
        }
      },
      (err: unknown) => {
        active.prompt = null;
        renderer.resume();
        const name = (err as Error)?.name;
        if (name === 'AbortPromptError' && current.why) return renderer.note(current.why);
        if (name === 'AbortPromptError' || name === 'ExitPromptError') {
          interrupted = interrupted || name === 'ExitPromptError';
          if (name === 'ExitPromptError') stop.abort();
          return;
        }
        promptError = err;
        stop.abort();
      },
    );
    return undefined;
  };

  const outcome = (ev: Extract<WatchEvent, { kind: 'ended' }>): number => {
    renderer.finish();
    if (!drawn) ctx.io.info(`orc: ${runId} ${describeEvent(ev.event)}`);
    // What to do next, as eas build says it (not under --json: a script knows its next step).
    const next = NEXT_STEPS[ev.status]?.(runId);
    if (next && !ctx.io.json) ctx.io.info(`next: ${next.map((c) => `\`${c}\``).join(' · ')}`);
    return ev.status === 'accepted' ? EXIT.ok : EXIT.runEnded;
  };

  try {
    for await (const ev of watchRunBatched(api, runId, { signal: stop.signal, ...knobs })) {
      if (ev.kind === 'logs') {
        for (const line of ev.items) renderer.handle(line);
        continue;
      }
      renderer.handle(ev);
      const open = active.prompt;
      if (ev.kind === 'event' && ev.event.type === 'run.gate_resolved') {
        if (ev.event.data.gate === waitingAt) waitingAt = null;
        // History replays a gate's earlier decisions too (a brand rejected before this watch began): only a
        // decision that left the gate no longer pending closed what the prompt asks.
        if (open && open.gate === ev.event.data.gate && (await api.runs.retrieve(runId)).gate_pending !== open.gate) {
          open.why = `gate ${sanitizeLine(open.gate)} was ${sanitizeLine(ev.event.data.decision ?? 'decided')} elsewhere`;
          open.abort.abort();
        } else if (open && open.gate === ev.event.data.gate) waitingAt = open.gate;
      }
      if (ev.kind === 'gate_pending') {
        const code = await onGate(ev.gate);
        if (code !== undefined) return code;
      }
      if (ev.kind === 'ended') {
        if (open) {
          open.why = 'the run ended';
          open.abort.abort();
        }
        return outcome(ev);
      }
    }
    if (promptError && !timedOut) throw promptError;
    if (timedOut) return await ranOut();
    // Ctrl-C: the last frame stays on screen, and the run goes on without us.
    renderer.finish({ keepFrame: interrupted });
    if (stoppedAtGate) {
      ctx.io.info(`orc: stopped watching; gate ${stoppedAtGate} of ${runId} still awaits a decision`);
      return EXIT.gatePending;
    }
    if (interrupted && waitingAt) {
      ctx.io.info(`orc: stopped watching; ${runId} waits at gate ${waitingAt}. Decide it with \`orc gate approve ${runId} ${waitingAt}\` or \`orc gate reject ${runId} ${waitingAt} --notes …\`, or watch again with \`orc watch ${runId}\`.`);
    } else if (interrupted) ctx.io.info(`orc: stopped watching; ${runId} goes on. Watch it again with \`orc watch ${runId}\`.`);
    return interrupted ? EXIT.interrupted : EXIT.ok;
  } finally {
    cancelMaxWait();
    ctx.signal.removeEventListener('abort', onSigint);
    renderer.finish();
  }

  /** --max-wait ran out: where the run is, as a last line under --json, and how to go on (exit 7). */
  async function ranOut(): Promise<number> {
    renderer.finish({ keepFrame: true });
    const run = await api.runs.retrieve(runId);
    if (ctx.io.json) ctx.io.streams.stdout.write(ctx.io.jsonLine({ type: 'orc.max_wait', run_id: runId, max_wait_s: flags.maxWait, run }));
    const where = run.gate_pending ? `waits at gate ${run.gate_pending}` : `is ${run.status} at ${run.stage}`;
    ctx.io.info(`orc: stopped after --max-wait ${flags.maxWait} s; ${runId} ${sanitizeLine(where)} and goes on. Watch it again with \`orc watch ${runId} --max-wait …\`.`);
    return EXIT.timedOut;
  }
}
