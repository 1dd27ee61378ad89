// A block of lines at the bottom of the terminal that is redrawn in place (progress now, parallel
// downloads next), with lines that stay printed above it. Each line is cut to the width so the block's
// height is what was counted; the cursor is hidden while it is drawn and always given back.
import { clipVisible } from './width.js';

const ESC = '\u001b[';

export class LiveRegion {
  private height = 0;
  private paused = false;
  private closed = false;
  private cursorHidden = false;
  /** Lines that came while paused (a prompt owns the terminal), printed on resume. */
  private held: string[] = [];
  private shown: string[] = [];

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly columns: () => number,
  ) {}

  /**
   * Lines that stay, above the region. `whole`: never cut to the width (it may wrap; an outcome, a URL).
   * `frame`: what the region shows from now on, drawn in the same stroke (no stale frame below the lines).
   */
  print(lines: string[], { whole = false, frame }: { whole?: boolean; frame?: string[] } = {}): void {
    const fitted = lines.map((l) => (whole ? l : this.fit(l)));
    if (frame) this.shown = frame;
    if (this.paused) return void this.held.push(...fitted);
    if (this.closed) return this.write(`${fitted.join('\n')}\n`);
    this.erase();
    this.write(`${fitted.join('\n')}\n`);
    this.draw(this.shown);
  }

  /** What the region shows from now on. */
  render(lines: string[]): void {
    this.shown = lines;
    if (this.paused || this.closed) return;
    this.draw(lines);
  }

  /** Takes the region off the screen until resume(): someone else needs the terminal. */
  pause(): void {
    this.erase();
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    const held = this.held;
    this.held = [];
    if (held.length) this.write(`${held.join('\n')}\n`);
    if (!this.closed) this.draw(this.shown);
  }

  /** The end: `keep` leaves the last frame on screen (interrupted), else it is erased. The cursor comes back. */
  close({ keep = false } = {}): void {
    if (this.paused) this.resume();
    if (!keep) this.erase();
    this.height = 0;
    this.closed = true;
    this.showCursor();
  }

  showCursor(): void {
    if (this.cursorHidden) this.write(`${ESC}?25h`);
    this.cursorHidden = false;
  }

  private draw(lines: string[]): void {
    this.erase();
    if (!this.cursorHidden && lines.length) {
      this.write(`${ESC}?25l`);
      this.cursorHidden = true;
    }
    if (lines.length) this.write(`${lines.map((l) => this.fit(l)).join('\n')}\n`);
    this.height = lines.length;
  }

  private erase(): void {
    // From column 0: the terminal's own echo (^C) may have moved the cursor along the line below the frame,
    // and going up keeps the column, which would leave the frame's first characters on screen.
    if (this.height > 0) this.write(`\r${ESC}${this.height}A${ESC}J`);
    this.height = 0;
  }

  /** One screen line at most; colour codes do not count as width. */
  fit(line: string): string {
    return clipVisible(line, Math.max(20, this.columns() - 1), '…');
  }

  private write(s: string): void {
    this.out.write(s);
  }
}
