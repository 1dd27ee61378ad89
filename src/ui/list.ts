// The one way a list is printed: items taken from pages up to --limit (or --all), then an array under
// --json, a table fitted to the terminal for people, tab-separated lines for pipes, or a line on stderr
// when there is nothing.
import { escapeControls, type IO } from './io.js';
import { loadStyle } from './style.js';
import { renderTable, type Column } from './table.js';

export interface ListColumn<T> extends Column {
  cell(item: T, tty: boolean): string;
  /** Colour by status, for the status column. */
  status?: boolean;
  /** What the cells need read for these items (a page, or the whole list), before they are drawn. */
  load?(items: T[]): Promise<unknown>;
}

export interface ListOptions<T> {
  items: AsyncIterable<T> | Iterable<T>;
  /** At most this many; undefined or `all` for every one. */
  limit?: number;
  all?: boolean;
  columns: ListColumn<T>[];
  /** Said on stderr when there is nothing to list. */
  empty: string;
}

/** Collects the items (stopping at the limit, so no page past it is fetched) and prints them. */
export async function printList<T>(io: IO, opts: ListOptions<T>): Promise<void> {
  const max = opts.all || opts.limit === undefined ? Infinity : opts.limit;
  // `--all` for a script (JSON without --jq, or tab-separated lines into a pipe): the items are written as
  // they come, a page at a time, so 100,000 runs hold one page in memory, not all of them. (Should a page
  // fail past the first, what came before is out, and the exit code says it failed.) A table at a terminal
  // needs every row for its column widths, --jq the whole document; a --limit list is small anyway.
  if (opts.all && ((io.json && !io.filter) || (!io.json && !io.stdoutIsTTY))) return streamList(io, opts, max);
  const items: T[] = [];
  if (max > 0) {
    for await (const item of opts.items) {
      items.push(item);
      if (items.length >= max) break;
    }
  }
  if (io.json) {
    io.writeJson(items);
    return;
  }
  if (items.length === 0) {
    io.info(opts.empty);
    return;
  }
  for (const line of await listLines(io, items, opts.columns)) io.out(line);
}

/** The items written as they come: a JSON array exactly as writeJson prints it, or tab-separated lines. */
async function streamList<T>(io: IO, opts: ListOptions<T>, max: number): Promise<void> {
  const out = io.streams.stdout;
  let batch: T[] = [];
  let count = 0;
  let text = '';
  const flush = async (last: boolean) => {
    if (io.json) {
      for (const item of batch)
        text += `${count++ === 0 ? '[\n' : ',\n'}${JSON.stringify(item, null, 2).replace(/^/gm, '  ')}`;
      if (last) text += count === 0 ? '[]\n' : '\n]\n';
      text = escapeControls(text);
    } else {
      count += batch.length;
      if (batch.length) text = `${(await listLines(io, batch, opts.columns)).join('\n')}\n`;
    }
    batch = [];
    if (text) {
      // Past what the pipe takes at once, wait for it: memory stays one page however slow the reader.
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      text = '';
    }
  };
  if (max > 0) {
    let seen = 0;
    for await (const item of opts.items) {
      batch.push(item);
      if (batch.length >= 100) await flush(false);
      if (++seen >= max) break;
    }
  }
  await flush(true);
  if (!io.json && count === 0) io.info(opts.empty);
}

/** The table of the items, as lines (fitted to a terminal, tab-separated for a pipe). */
export async function listLines<T>(io: IO, items: T[], columns: ListColumn<T>[]): Promise<string[]> {
  const tty = io.stdoutIsTTY;
  const style = await loadStyle(io);
  await Promise.all(columns.map((c) => c.load?.(items)));
  const rows = items.map((item) => columns.map((c) => c.cell(item, tty)));
  return renderTable(columns, rows, {
    tty,
    width: io.columns,
    paint: (_r, c, text) => (columns[c]!.status ? style.status(text) : text),
  });
}

/** The page size to ask for: no more than needed, no more than the service allows. */
export function pageSize(limit: number, all: boolean | undefined): number {
  return all ? 100 : Math.min(Math.max(limit, 1), 100);
}
