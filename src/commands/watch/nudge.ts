// The nudge when a gate opens or a run ends (--notify): the terminal's own notification sequence, else the
// system's notifier, else the bell; the one channel chosen once per watch from the environment.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Api } from '../../api/index.js';
import type { RunNames } from '../../api/run-names.js';
import { UsageError } from '../../exit/errors.js';
import { TERMINAL_STATUSES } from '../../contract/events.js';
import { oneLine, sanitizeLine } from '../../lib/sanitize.js';
import type { Context } from '../context.js';
import { type GateEvent, runGateHook } from './gate-exec.js';

export type Channel =
  | { kind: 'osc9' }
  | { kind: 'osc777' }
  | { kind: 'notify-send'; path: string }
  | { kind: 'osascript'; path: string }
  | { kind: 'bell' };

type Env = NodeJS.ProcessEnv;

/** Terminals known to show OSC 9 (iTerm2's) as a notification, by TERM_PROGRAM. */
const OSC9_PROGRAMS = ['iTerm.app', 'WezTerm', 'ghostty'];

/** How the person is told, from the environment; null when nothing can tell them. */
export function chooseChannel(env: Env, platform: NodeJS.Platform, bell: boolean): Channel | null {
  const sequence = terminalSequence(env);
  if (sequence) return { kind: sequence };
  return desktopNotifier(env, platform) ?? (bell ? { kind: 'bell' } : null);
}

/** OSC 9 or OSC 777 where the terminal is known to show it. Not inside tmux or screen: they drop both unless
 * passthrough is allowed (off by default in tmux), and the outer terminal cannot be known from in there; the
 * desktop notifier or the bell (which tmux passes on) is then the nudge. */
function terminalSequence(env: Env): 'osc9' | 'osc777' | null {
  const term = env.TERM ?? '';
  if (env.TMUX || env.STY || term.startsWith('screen') || term.startsWith('tmux')) return null;
  if (OSC9_PROGRAMS.includes(env.TERM_PROGRAM ?? '') || env.KITTY_WINDOW_ID || term === 'xterm-kitty') return 'osc9';
  // Windows Terminal reads OSC 9 as ConEmu's progress and other commands, so 777 there; foot shows 777.
  if (env.WT_SESSION || term.startsWith('foot')) return 'osc777';
  return null;
}

function desktopNotifier(env: Env, platform: NodeJS.Platform): Channel | null {
  if (platform === 'darwin') {
    const path = onPath('osascript', env);
    return path ? { kind: 'osascript', path } : null;
  }
  if (platform === 'win32' || !(env.DISPLAY || env.WAYLAND_DISPLAY || env.DBUS_SESSION_BUS_ADDRESS)) return null;
  const path = onPath('notify-send', env);
  return path ? { kind: 'notify-send', path } : null;
}

/** The program's path in a PATH folder where it can be run, else null. */
function onPath(name: string, env: Env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return null;
}

/** What a notification may carry: one line, no controls (the sequence's own BEL/ST), at most 200 characters. */
export function notificationText(text: string): string {
  const line = sanitizeLine(text).replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * Tells the person `text` on the channel: sequences and the bell on the terminal (stderr), a notifier as a
 * program given the text as an argument, never through a shell. `failed` hears why a notifier did not run.
 */
export function notify(c: Channel, raw: string, stderr: NodeJS.WritableStream, failed: (why: string) => void): void {
  const text = notificationText(raw);
  if (c.kind === 'bell') stderr.write('\u0007');
  else if (c.kind === 'osc9') stderr.write(`\u001b]9;${text}\u0007`);
  else if (c.kind === 'osc777') stderr.write(`\u001b]777;notify;orc;${text.replace(/;/g, ',')}\u0007`);
  else if (c.kind === 'notify-send') runNotifier(c.path, ['--app-name=orc', 'orc', text], failed);
  // The text reaches AppleScript as argv, never inside the script: nothing in it can be read as code.
  else
    runNotifier(
      c.path,
      ['-e', 'on run argv', '-e', 'display notification (item 1 of argv) with title "orc"', '-e', 'end run', text],
      failed,
    );
}

function runNotifier(path: string, args: string[], failed: (why: string) => void): void {
  const child = spawn(path, args, { stdio: 'ignore' });
  child.on('error', (err) => failed(err.message));
  child.on('exit', (code, signal) => {
    if (code !== 0) failed(signal ? `killed by ${signal}` : `exit ${code}`);
  });
}

/** What a watch was asked to tell, and how: --notify, the bell (--no-bell), --on-gate-exec. */
export interface NudgeFlags {
  notify?: boolean;
  bell?: boolean;
  onGateExec?: string;
}

/**
 * The nudges of one watch, told by the gate desk when a gate opens that waits for a person and when a run
 * ends: the bell alone (as before --notify), the notification, and the gate hook. A hook still running when
 * the watch ends is waited for (`drained`), up to its bound.
 */
export class Nudges {
  private readonly hooks = new Set<Promise<void>>();
  /** Runs that had ended before the watch began: their end, replayed by the stream, is no news. */
  private readonly endedBefore = new Set<string>();
  /** The gate each run waited at when the watch began, and its round (the decisions made at it before): that
   * opening is no news either (a watch restarted over twenty waiting gates must not send twenty messages
   * again); a later round of it is. */
  private readonly pendingBefore = new Map<string, { gate: string; round: number }>();

  private constructor(
    private readonly ctx: Context,
    private readonly api: Api,
    private readonly names: RunNames,
    private readonly channel: Channel | null,
    private readonly bell: boolean,
    private readonly exec: { command: string; timeoutMs: number } | null,
  ) {}

  /** The channel chosen once; where --notify cannot tell anyone, it says so once on stderr and the watch goes on. */
  static start(ctx: Context, api: Api, names: RunNames, flags: NudgeFlags): Nudges {
    const bell = flags.bell !== false && ctx.io.interactiveOutput;
    const exec = flags.onGateExec ? { command: flags.onGateExec, timeoutMs: hookTimeout(ctx) } : null;
    if (!flags.notify) return new Nudges(ctx, api, names, null, bell, exec);
    const why = !ctx.io.interactiveOutput
      ? 'when not at a terminal (stdout and stderr)'
      : ctx.io.json
        ? 'under --json'
        : null;
    const channel = why ? null : chooseChannel(ctx.env, process.platform, bell);
    if (why) ctx.io.info(`orc: --notify: nothing will be notified ${why}; the watch goes on`);
    else if (!channel)
      ctx.io.info(
        'orc: --notify: nothing here can notify (no terminal known to show notifications, no notify-send or osascript, and --no-bell); the watch goes on',
      );
    // The notification replaces the bell; where there is none, the bell rings at gates as without --notify.
    return new Nudges(ctx, api, names, channel, channel ? false : bell, exec);
  }

  /** A gate opened that waits for a person: the bell or the notification, and the hook. */
  /** `round`: the decisions at this gate the stream has shown before this opening. */
  async gateOpened(runId: string, gate: string, round: number, note: (text: string) => void): Promise<void> {
    if (this.bell) this.ctx.io.streams.stderr.write('\u0007');
    if (!this.channel && !this.exec) return;
    const before = this.pendingBefore.get(runId);
    if (before?.gate === gate && before.round === round) return;
    const name = await this.nameOf(runId);
    const named = name ? `${runId} ${name}` : runId;
    if (this.channel) this.tell(`${named} — gate ${gate} waits`, note);
    if (this.exec) this.startHook(runId, gate, name, note);
  }

  /** Before a run's stream opens: whether it has ended, or waits at a gate, already (asked only when there is
   * someone to notify or a hook to run). */
  async watching(runId: string): Promise<void> {
    if (!this.channel && !this.exec) return;
    const run = await this.api.runs.retrieve(runId).catch(() => null);
    if (run && TERMINAL_STATUSES.has(run.status)) this.endedBefore.add(runId);
    const gate = run?.status === 'awaiting_approval' ? run.gate_pending : null;
    if (!gate) return;
    const gates = await this.api.gates.list(runId).catch(() => []);
    const round = gates.find((g) => g.name === gate)?.history?.length ?? 0;
    this.pendingBefore.set(runId, { gate, round });
  }

  /** A run ended (accepted, failed, …) while watched: the notification. */
  async runEnded(runId: string, status: string, note: (text: string) => void): Promise<void> {
    if (!this.channel || this.endedBefore.has(runId)) return;
    const name = await this.nameOf(runId);
    this.tell(`${name ? `${runId} ${name}` : runId} ${status}`, note);
  }

  /** Every hook started has ended (each is bounded). */
  async drained(): Promise<void> {
    while (this.hooks.size) await Promise.all(this.hooks);
  }

  private async nameOf(runId: string): Promise<string | null> {
    const name = await this.names.one(runId);
    return name === null ? null : oneLine(name);
  }

  private tell(text: string, note: (text: string) => void): void {
    notify(this.channel!, text, this.ctx.io.streams.stderr, (why) =>
      note(`--notify: ${this.channel!.kind} did not notify (${why})`),
    );
  }

  private startHook(runId: string, gate: string, name: string | null, note: (text: string) => void): void {
    const { command, timeoutMs } = this.exec!;
    const event: GateEvent = {
      run_id: runId,
      gate,
      ...(name ? { name } : {}),
      opened_at: new Date(this.ctx.clock.now()).toISOString(),
      hint: `orc gate approve ${runId} ${gate}`,
    };
    const hook = runGateHook(command, event, { env: this.ctx.env, clock: this.ctx.clock, timeoutMs }).then((why) => {
      this.hooks.delete(hook);
      if (why) note(`--on-gate-exec for gate ${gate} failed (${why}); the watch goes on`);
    });
    this.hooks.add(hook);
  }
}

/** ORC_HOOK_TIMEOUT_MS: milliseconds a gate hook may run (30 000). */
function hookTimeout(ctx: Context): number {
  const ms = Number(ctx.env.ORC_HOOK_TIMEOUT_MS ?? 30_000);
  if (!(ms > 0))
    throw new UsageError(
      `ORC_HOOK_TIMEOUT_MS must be a number of milliseconds above 0, not ${JSON.stringify(ctx.env.ORC_HOOK_TIMEOUT_MS)}`,
    );
  return ms;
}
