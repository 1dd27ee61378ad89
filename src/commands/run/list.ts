// `orc run list`: newest first; a table for people, tab-separated lines for pipes, an array under --json.
import type { Run } from '../../contract/schemas.js';
import type { Context } from '../../context.js';
import { orDash, relativeTime } from '../../ui/format.js';
import { pageSize, printList } from '../../ui/list.js';
import type { FlagsOf } from '../../cli/spec.js';
import type { list as spec } from './command.js';

export default async function list(ctx: Context, _args: [], flags: FlagsOf<typeof spec>): Promise<number> {
  const api = await ctx.api();
  await printList<Run>(ctx.io, {
    items: api.runs.listAll({ status: flags.status, limit: pageSize(flags.limit, flags.all) }),
    limit: flags.limit,
    all: flags.all,
    empty: flags.status ? `No runs with status ${flags.status}.` : 'No runs yet. Create one with `orc run create`.',
    columns: [
      { header: 'ID', cell: (r) => r.id },
      { header: 'STATUS', cell: (r) => r.status, status: true },
      { header: 'STAGE', flexible: true, cell: (r) => r.stage },
      { header: 'GATE', cell: (r) => orDash(r.gate_pending) },
      { header: 'CREATED', flexible: true, cell: (r, tty) => (tty ? relativeTime(r.created_at, ctx.clock.now()) : r.created_at) },
    ],
  });
  return 0;
}
