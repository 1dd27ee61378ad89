// The one object that owns stdin, stdout and stderr and knows what is a terminal.
// stdout carries data only; messages, warnings and progress go to stderr.
import { sanitize } from '../lib/sanitize.js';
import { ioPaint } from './style.js';

export interface Streams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Whether stdin is a terminal, when known without touching `stdin`: process.stdin is made on first use,
   * and making it for a file or /dev/null loads Node's file streams and readline (a few ms at every command). */
  stdinIsTTY?: boolean;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

export interface IOFlags {
  json: boolean;
  noInput: boolean;
  env: NodeJS.ProcessEnv;
  /** --accessible: no redrawing, no spinner, numbered questions read by line (also ORC_ACCESSIBLE=1). */
  accessible?: boolean;
}

export class IO {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  readonly json: boolean;
  /** Colour, spinners and redraws: only for a person at a terminal. */
  readonly interactiveOutput: boolean;
  readonly color: boolean;
  /** Spinners and redrawn progress: decoration, so off with NO_COLOR too. */
  readonly animate: boolean;
  /** For screen readers and braille displays: the screen only grows (src/ui/line-prompt.ts, the plain watch). */
  readonly accessible: boolean;
  readonly canPrompt: boolean;

  constructor(
    readonly streams: Streams,
    flags: IOFlags,
  ) {
    this.stdoutIsTTY = Boolean(streams.stdout.isTTY);
    this.stderrIsTTY = Boolean(streams.stderr.isTTY);
    this.stdinIsTTY = streams.stdinIsTTY ?? Boolean(streams.stdin.isTTY);
    this.json = flags.json;
    const ci = Boolean(flags.env.CI) && flags.env.CI !== 'false';
    this.interactiveOutput = this.stdoutIsTTY && this.stderrIsTTY && !ci && !flags.noInput;
    this.color = this.interactiveOutput && flags.env.NO_COLOR === undefined && flags.env.TERM !== 'dumb';
    const envAccessible = flags.env.ORC_ACCESSIBLE;
    this.accessible =
      Boolean(flags.accessible) ||
      (envAccessible !== undefined && envAccessible !== '' && envAccessible !== '0' && envAccessible !== 'false');
    this.animate = this.color && !this.accessible;
    this.canPrompt = this.interactiveOutput && this.stdinIsTTY && !flags.json;
  }

  /** All of stdin, as text (`-` arguments, --with-key). */
  async readStdin(): Promise<string> {
    return (await this.readStdinBytes()).toString('utf8');
  }

  /** All of stdin, byte for byte (a webhook body to verify). */
  async readStdinBytes(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of this.streams.stdin as AsyncIterable<Buffer | string>)
      chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
    return Buffer.concat(chunks);
  }

  get columns(): number {
    return this.streams.stdout.columns ?? this.streams.stderr.columns ?? 80;
  }

  /** A line of data on stdout. */
  out(line: string): void {
    this.streams.stdout.write(`${line}\n`);
  }

  /** The one JSON document of a `--json` command. JSON.stringify leaves DEL, C1 controls (U+007F–U+009F) and
   * bidi controls raw, and terminals act on those; they are escaped too, so server text cannot drive the terminal. */
  writeJson(value: unknown): void {
    if (this.filter) return void this.streams.stdout.write(this.filtered(value));
    this.streams.stdout.write(`${escapeControls(JSON.stringify(value, null, 2))}\n`);
  }

  /** One compact JSON document and its newline (NDJSON), controls escaped as in writeJson. `text`, when
   * given, is that document as it came (an event's JSON from the stream): passed on as it is when it is one
   * line, not written anew, which for a stream of thousands of events is most of the work. */
  jsonLine(value: unknown, text?: string): string {
    if (this.filter) return this.filtered(value);
    if (text !== undefined && !/[\n\r]/.test(text)) return `${escapeControls(text)}\n`;
    return `${escapeControls(JSON.stringify(value))}\n`;
  }

  /** `--jq`: what the filter prints for this document (raw strings sanitised for a terminal, as all text is). */
  filter: ((value: unknown) => string) | null = null;

  private filtered(value: unknown): string {
    const text = this.filter!(value);
    return this.stdoutIsTTY ? sanitize(text) : text;
  }

  /** --debug output: stderr, sanitised. */
  debug(line: string): void {
    if (this.json) return this.jsonNote('debug', line);
    this.streams.stderr.write(`${ioPaint(this.color).dim(sanitize(line))}\n`);
  }

  /** A message for the person on stderr (sanitised: it may quote the service). */
  info(line: string): void {
    if (this.json) return this.jsonNote('notice', line.replace(/^orc: /, ''));
    this.streams.stderr.write(`${sanitize(line)}\n`);
  }

  /** A warning; under --json `fields` go beside its message (data a script reads, sanitised as the line is). */
  warn(line: string, fields?: Record<string, unknown>): void {
    if (this.json) return this.jsonNote('warning', line, fields);
    this.streams.stderr.write(`${ioPaint(this.color).yellow('warning:')} ${sanitize(line)}\n`);
  }

  /**
   * Under --json every line of stderr is one JSON object, decided here for every message orc writes:
   * `{"notice":{"message"}}`, `{"warning":{…}}`, `{"debug":{…}}`, and a failure the last, `{"error":…}`.
   * A script reads stderr as JSON lines, never a line of prose.
   */
  private jsonNote(kind: 'notice' | 'warning' | 'debug', line: string, fields?: Record<string, unknown>): void {
    const note = { message: sanitize(line), ...fields };
    this.streams.stderr.write(`${escapeControls(JSON.stringify({ [kind]: note }))}\n`);
  }

  error(line: string): void {
    this.streams.stderr.write(`${ioPaint(this.color).red('orc:')} ${sanitize(line)}\n`);
  }
}

/** DEL, C1 and bidi controls, which JSON.stringify leaves raw, as \u escapes. */
export function escapeControls(json: string): string {
  return json.replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
