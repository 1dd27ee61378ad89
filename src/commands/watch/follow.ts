// Following a run to its end: the engine's events to a renderer, gates approved, asked, waited on or
// stopped at, and the outcome as an exit code (CONTRACT.md): 0 accepted, 5 rejected/failed/canceled,
// 6 a gate pending with no one to ask, 7 --max-wait ran out first, 1 the stream lost for good, 130 Ctrl-C.
import type { Api } from '../../api/index.js';
import { watchRunBatched, type WatchEvent } from '../../watch/engine.js';
import type { Context } from '../context.js';
import { EXIT, UsageError } from '../../exit/errors.js';
import { loadStyle } from '../../ui/style.js';
import { describeEvent } from '../../ui/watch/describe.js';
import type { WatchRenderer } from '../../ui/watch/types.js';
import type { FlagValues } from '../define.js';
import type { FOLLOW_FLAGS } from './flags.js';
import { GateDesk, type Policy } from './gates.js';

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

/** --max-wait: `expire` once the time is up (on the context's clock); the returned function cancels it. */
export function maxWaitTimer(ctx: Context, flags: FollowFlags, expire: () => void): () => void {
  return flags.maxWait === undefined ? () => {} : ctx.clock.timer(flags.maxWait * 1000, expire);
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
    stop.abort();
  });
  let stoppedAtGate: string | null = null;
  let promptError: unknown = null;
  const onSigint = () => {
    interrupted = true;
    stop.abort();
  };
  ctx.signal.addEventListener('abort', onSigint);
  const view = {
    note: (_id: string, text: string) => renderer.note(text),
    pause: () => renderer.pause(),
    resume: () => renderer.resume(),
    drawsScores: drawn,
  };
  const desk = new GateDesk(ctx, api, { policy, approve, bell: flags.bell !== false, signal: stop.signal }, view, {
    stopAt: (_id, gate) => {
      stoppedAtGate = gate;
      stop.abort();
    },
    interrupt: onSigint,
    fail: (err) => {
      promptError = err;
      stop.abort();
    },
  });

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
      if (ev.kind === 'event' && ev.event.type === 'run.gate_resolved') {
        await desk.resolved(runId, ev.event.data.gate, ev.event.data.decision);
      }
      if (ev.kind === 'gate_pending' && (await desk.opened(runId, ev.gate)) === 'exit') {
        renderer.finish();
        const decide = `\`orc gate approve ${runId} ${ev.gate}\` or \`orc gate reject ${runId} ${ev.gate} --notes …\``;
        ctx.io.info(`orc: gate ${ev.gate} of ${runId} awaits a decision: ${decide}`);
        return EXIT.gatePending;
      }
      if (ev.kind === 'ended') {
        desk.ended(runId);
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
    const waitingAt = desk.waitingAt(runId);
    if (interrupted && waitingAt) {
      ctx.io.info(
        `orc: stopped watching; ${runId} waits at gate ${waitingAt}. Decide it with \`orc gate approve ${runId} ${waitingAt}\` or \`orc gate reject ${runId} ${waitingAt} --notes …\`, or watch again with \`orc watch ${runId}\`.`,
      );
    } else if (interrupted)
      ctx.io.info(`orc: stopped watching; ${runId} goes on. Watch it again with \`orc watch ${runId}\`.`);
    return interrupted ? EXIT.interrupted : EXIT.ok;
  } finally {
    cancelMaxWait();
    ctx.signal.removeEventListener('abort', onSigint);
    stop.abort();
    renderer.finish();
  }

  /** --max-wait ran out: where the run is, as a last line under --json, and how to go on (exit 7). */
  async function ranOut(): Promise<number> {
    renderer.finish({ keepFrame: true });
    const run = await api.runs.retrieve(runId);
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
