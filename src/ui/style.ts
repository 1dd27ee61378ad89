// Colour for people at a terminal, in one place: chalk (loaded only when colour is on) for what commands
// draw, and three fixed SGR pairs for IO's own lines (debug, warning, error), which must not wait for a
// module to load.

/** The colours IO's lines use, as plain escape pairs (no load): on only when `on`. */
export function ioPaint(on: boolean): { dim(s: string): string; yellow(s: string): string; red(s: string): string } {
  const pair = (open: number, close: number) => (s: string) => (on ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return { dim: pair(2, 22), yellow: pair(33, 39), red: pair(31, 39) };
}

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  /** The colour of a run or gate status. */
  status(s: string): string;
  /** What must not be missed: LIVE. */
  alarm(s: string): string;
  /** A block in this colour (#rrggbb) and the hex after it; just the hex without colour or with a bad hex. */
  swatch(hex: string, label: string): string;
}

const plain = (s: string) => s;
const PLAIN: Style = {
  bold: plain,
  dim: plain,
  red: plain,
  green: plain,
  yellow: plain,
  cyan: plain,
  status: plain,
  alarm: plain,
  swatch: (_hex, label) => label,
};

/** The style of a terminal that takes colour (`io.color`), else plain. */
export async function loadStyle(io: { readonly color: boolean }): Promise<Style> {
  if (!io.color) return PLAIN;
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  const byStatus: Record<string, (s: string) => string> = {
    running: c.cyan,
    awaiting_approval: c.yellow,
    pending: c.yellow,
    accepted: c.green,
    approved: c.green,
    pass: c.green,
    rejected: c.red,
    failed: c.red,
    fail: c.red,
    canceled: c.dim,
    waiting: c.dim,
    warn: c.yellow,
  };
  const truecolor = new Chalk({ level: 3 });
  return {
    bold: c.bold,
    dim: c.dim,
    red: c.red,
    green: c.green,
    yellow: c.yellow,
    cyan: c.cyan,
    status: (s) => (byStatus[s] ?? plain)(s),
    alarm: c.bold.red,
    swatch: (hex, label) => (/^#[0-9a-f]{6}$/i.test(hex) ? `${truecolor.bgHex(hex)('    ')} ${label}` : label),
  };
}
