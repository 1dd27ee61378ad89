// Tables: aligned and fitted to the terminal for people, tab-separated lines for pipes.
import { sanitizeLine } from '../lib/sanitize.js';
import { clipVisible, displayWidth, fitColumns } from './width.js';

export interface Column {
  header: string;
  /** May be shortened with … when the terminal is narrow (the others keep their width). */
  flexible?: boolean;
}

export interface TableOptions {
  tty: boolean;
  width: number;
  /** Colours a cell after its width is fixed (escape codes do not count as width). */
  paint?: (row: number, column: number, text: string) => string;
}

export function renderTable(columns: Column[], rows: string[][], opts: TableOptions): string[] {
  const cells = rows.map((r) => r.map((c) => sanitizeLine(c)));
  if (!opts.tty) return cells.map((r) => r.join('\t'));
  const widths = columns.map((col, i) =>
    Math.max(displayWidth(col.header), ...cells.map((r) => displayWidth(r[i] ?? ''))),
  );
  const gap = 2;
  let total = widths.reduce((a, b) => a + b, 0) + gap * (columns.length - 1);
  for (let i = columns.length - 1; i >= 0 && total > opts.width; i--) {
    if (!columns[i]!.flexible) continue;
    const cut = Math.min(total - opts.width, widths[i]! - Math.max(columns[i]!.header.length, 8));
    if (cut > 0) {
      widths[i]! -= cut;
      total -= cut;
    }
  }
  // Still too wide: every column but the first (the id people copy) gives up width, down to a few characters,
  // the widest first; what is left over is cut at the edge. A table never wraps into a mess.
  for (let i = columns.length - 1; i >= 1 && total > opts.width; i--) {
    const cut = Math.min(total - opts.width, widths[i]! - 4);
    if (cut > 0) {
      widths[i]! -= cut;
      total -= cut;
    }
  }
  const line = (r: string[], row: number) =>
    r
      .map((c, i) => {
        const text = fitColumns(c, widths[i]!);
        const painted =
          opts.paint && row >= 0
            ? opts.paint(row, i, text.trimEnd()) + ' '.repeat(text.length - text.trimEnd().length)
            : text;
        return painted;
      })
      .join(' '.repeat(gap))
      .trimEnd();
  const edge = (l: string) => (total > opts.width ? clipVisible(l, opts.width) : l);
  return [
    line(
      columns.map((c) => c.header),
      -1,
    ),
    ...cells.map((r, i) => line(r, i)),
  ].map(edge);
}
