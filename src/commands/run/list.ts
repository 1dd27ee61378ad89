// `orc run list`: newest first; a table for people, tab-separated lines for pipes, an array under --json.
import type { Run } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { orDash, relativeTime } from '../../ui/format.js';
import { listLines, pageSize, printList, type ListColumn } from '../../ui/list.js';
import { sleep } from '../../lib/clock.js';
import { EXIT, UsageError } from '../../exit/errors.js';
import type { FlagsOf } from '../define.js';
import type { list as def } from './command.js';
import { listLimit } from '../list-flags.js';
import { rememberingNames } from '../../config/name-memory.js';
import { oneLine } from '../../lib/sanitize.js';

/** How often `run list --watch` reads the list again. */
const REDRAW_MS = 2_000;

export default async function list(ctx: Context, _args: [], flags: FlagsOf<typeof def>): Promise<number> {
  const api = await ctx.api();
  // Read for the rows drawn (a page at a time, a few in flight), once per run however often --watch redraws.
  const names = await rememberingNames(api, ctx.configDir);
  const columns: ListColumn<Run>[] = [
    { header: 'ID', cell: (r) => r.id },
    { header: 'STATUS', cell: (r) => r.status, status: true },
    { header: 'STAGE', flexible: true, cell: (r) => r.stage },
    { header: 'GATE', cell: (r) => orDash(r.gate_pending) },
    {
      header: 'CREATED',
      flexible: true,
      cell: (r, tty) => (tty ? relativeTime(r.created_at, ctx.clock.now()) : r.created_at),
    },
    // Last (as `docker ps` puts NAMES): a script that cut the fields before names came reads the same ones.
    {
      header: 'NAME',
      flexible: true,
      cell: (r) => oneLine(orDash(names.peek(r.id))),
      load: (runs) => names.ofRuns(runs),
    },
  ];
  const max = listLimit(flags);
  const items = () => api.runs.listAll({ status: flags.status, limit: pageSize(max, flags.all) });
  if (flags.watch) return watchList(ctx, max, items, columns);
  await printList<Run>(ctx.io, {
    items: items(),
    limit: max,
    all: flags.all,
    empty: flags.status ? `No runs with status ${flags.status}.` : 'No runs yet. Create one with `orc run create`.',
    columns,
  });
  return 0;
}

type Columns = ListColumn<Run>[];
type Items = () => AsyncIterable<Run>;

/** The list, drawn again every two seconds in place until Ctrl-C; the last drawing stays on screen. */
async function watchList(ctx: Context, max: number, items: Items, columns: Columns): Promise<number> {
  const io = ctx.io;
  if (io.json || !io.interactiveOutput || io.accessible)
    throw new UsageError(
      '--watch redraws the list at a terminal',
      'For a script or a screen reader: `orc watch --all` (a line per change; --json for NDJSON).',
    );
  const { LiveRegion } = await import('../../ui/live-region.js');
  const region = new LiveRegion(io.streams.stdout, () => io.columns);
  try {
    while (!ctx.signal.aborted) {
      const runs: Run[] = [];
      for await (const r of items()) {
        runs.push(r);
        if (runs.length >= max) break;
      }
      const when = new Date(ctx.clock.now()).toTimeString().slice(0, 8);
      region.render([
        ...(runs.length ? await listLines(io, runs, columns) : ['No runs yet.']),
        '',
        `${runs.length} run${runs.length === 1 ? '' : 's'} · read at ${when} · every 2 s · Ctrl-C to stop`,
      ]);
      await sleep(ctx.clock, REDRAW_MS, ctx.signal).catch(() => {});
    }
  } finally {
    region.close({ keep: true });
  }
  return EXIT.interrupted;
}
