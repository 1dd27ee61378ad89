// A real terminal for interactive tests: tmux runs the built orc, send-keys types, capture-pane reads the screen.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { until } from './until.js';

const run = promisify(execFile);

export interface TmuxOptions {
  env?: Record<string, string>;
  width?: number;
  height?: number;
  /** Everything the program writes, as bytes, into this file (what the terminal was sent), from its first. */
  record?: string;
}

export class TmuxSession {
  private constructor(private readonly socket: string) {}

  /** Starts `command` in a fresh tmux server; the shell prints `[exit N]` when it ends and keeps the pane. */
  static start(command: string[], opts: TmuxOptions = {}): TmuxSession {
    const socket = `orc-test-${randomBytes(6).toString('hex')}`;
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    // A person at a terminal: no CI variable, a capable TERM.
    const env = Object.entries({ TERM: 'xterm-256color', ...opts.env })
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(' ');
    // The shell survives a Ctrl-C meant for the program (a trap, unlike an ignore, is not inherited).
    // Recording: the shell waits for a line (an Enter sent once the recorder is attached), so nothing the
    // program writes comes before it, however slowly tmux attaches it on a busy machine.
    const gate = opts.record ? 'read _; ' : '';
    const script = `trap 'true' INT; ${gate}env -u CI -u NO_COLOR ${env} ${command.map(quote).join(' ')}; echo "[exit $?]"; sleep 600`;
    execFileSync('tmux', [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'orc',
      '-x',
      String(opts.width ?? 120),
      '-y',
      String(opts.height ?? 40),
      'sh',
      '-c',
      script,
    ]);
    const session = new TmuxSession(socket);
    if (opts.record) {
      session.tmux('pipe-pane', '-o', '-t', 'orc', `cat >> '${opts.record}'`);
      session.send('Enter');
    }
    return session;
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** Keys by tmux name (Enter, Down, C-c) or literal text with `literal`. */
  send(keys: string, literal = false): void {
    this.tmux('send-keys', '-t', 'orc', ...(literal ? ['-l', keys] : [keys]));
  }

  type(text: string): void {
    this.send(text, true);
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', 'orc', '-S', '-200');
  }

  /** The screen, read without holding this process: a test's sandbox runs in it, and a look every 80 ms
   * that blocked the event loop (execFileSync) starved the sandbox's own work on a busy machine. */
  private async screenLater(): Promise<string> {
    const { stdout } = await run('tmux', ['-L', this.socket, 'capture-pane', '-p', '-t', 'orc', '-S', '-200'], {
      encoding: 'utf8',
    });
    return stdout;
  }

  async waitFor(what: string | RegExp, timeoutMs?: number): Promise<string> {
    let s = '';
    const look = async () => {
      s = await this.screenLater();
      return (typeof what === 'string' ? s.includes(what) : what.test(s)) && s;
    };
    // each look starts a tmux client: not too often
    return until(look, String(what), {
      ...(timeoutMs ? { timeoutMs } : {}),
      pollMs: 80,
      seen: () => `the screen:\n${s}`,
    });
  }

  async exitCode(timeoutMs?: number): Promise<number> {
    const s = await this.waitFor(/\[exit \d+\]/, timeoutMs);
    return Number(/\[exit (\d+)\]/.exec(s)![1]);
  }

  /** Whether the terminal shows its cursor (a program that hid it must show it again). */
  cursorVisible(): boolean {
    return this.tmux('display-message', '-p', '-t', 'orc', '#{cursor_flag}').trim() === '1';
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}
