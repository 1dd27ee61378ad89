// `orc artifacts list <run>`: one line per kind.
import { JSON_ARTIFACT_KINDS } from '../../contract/events.js';
import type { ArtifactEntry } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { formatBytes } from '../../ui/format.js';
import { printList } from '../../ui/list.js';
import type { ArgsOf } from '../define.js';
import type { list as def } from './command.js';

export default async function list(ctx: Context, [runId]: ArgsOf<typeof def>): Promise<number> {
  const api = await ctx.api();
  await printList<ArtifactEntry>(ctx.io, {
    items: await api.artifacts.manifest(runId),
    empty: `Run ${runId} has no artifacts yet.`,
    columns: [
      { header: 'KIND', cell: (a) => a.kind },
      { header: 'STATUS', cell: (a) => a.status, status: true },
      { header: 'SIZE', cell: (a, tty) => (a.size === null ? '—' : tty ? formatBytes(a.size) : String(a.size)) },
      // A JSON kind is its content, fetched inline: it has no files to count, not zero of them.
      { header: 'FILES', cell: (a) => (JSON_ARTIFACT_KINDS.has(a.kind) && a.files === 0 ? '—' : String(a.files)) },
      { header: 'SHA256', cell: (a, tty) => (a.sha256 === null ? '—' : tty ? a.sha256.slice(0, 12) : a.sha256) },
    ],
  });
  return 0;
}
