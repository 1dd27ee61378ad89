// Colour for people at a terminal, through chalk, loaded only when colour is on.
import type { IO } from './io.js';

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  /** The colour of a run or gate status. */
  status(s: string): string;
}

const plain = (s: string) => s;
const PLAIN: Style = { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain, status: plain };

export async function loadStyle(io: IO): Promise<Style> {
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
  return { bold: c.bold, dim: c.dim, red: c.red, green: c.green, yellow: c.yellow, cyan: c.cyan, status: (s) => (byStatus[s] ?? plain)(s) };
}
