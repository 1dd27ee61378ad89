// `orc spec edit <run>`: in the editor (editor-loop.ts), or without one: --set, --unset, --file, --dry-run.
import type { Context } from '../context.js';
import type { Api } from '../../api/index.js';
import { UsageError } from '../../exit/errors.js';
import { changedFields, editInEditor, plannedChange, sendPatch, showDiff } from './editor-loop.js';
import { splitPath } from '../../app-spec/paths.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { edit as def } from './command.js';
import { readFlagChange, refuseTypos } from './flag-change.js';
import { pickRun } from '../pick.js';

export default async function edit(
  ctx: Context,
  [given]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const io = ctx.io;
  const runId = given ?? (await pickRun(ctx, 'moving', 'spec edit')).id;
  const byFlags = flags.set.length > 0 || flags.unset.length > 0 || flags.file !== undefined;
  if (flags.dryRun && !byFlags) throw new UsageError('--dry-run needs the change as --set, --unset or --file');
  if (flags.field !== undefined && byFlags)
    throw Object.assign(
      new UsageError(
        '--field opens the editor at a field; the change goes in the editor, not with --set, --unset or --file',
      ),
      { field: '--field' },
    );
  if (flags.field !== undefined)
    refuseTypos([{ path: splitPath(flags.field, '--field'), shown: `--field ${flags.field}` }]);
  // Everything typed is checked before anything is asked of the service.
  const change = await readFlagChange(ctx, flags);
  const api = await ctx.api();
  if (!byFlags) return editedInEditor(ctx, api, runId, flags);

  const { before, after, patch } = await plannedChange(api, runId, change.apply);
  if (Object.keys(patch).length === 0) {
    io.info('No changes; nothing was sent.');
    if (io.json || flags.dryRun) io.writeJson(flags.dryRun ? {} : { changed: false });
    return 0;
  }
  if (flags.dryRun) {
    io.info(`Dry run: this merge patch would change ${changedFields(patch)}; nothing was sent.`);
    io.writeJson(patch);
    return 0;
  }
  if (!io.json && io.interactiveOutput) await showDiff(ctx, before, after, flags.format);
  const updated = await sendPatch(api, runId, patch);
  io.info(`✓ spec of ${runId} updated: ${changedFields(patch)}`);
  if (io.json) io.writeJson(updated);
  return 0;
}

/** The edit made in the editor, and what came of it. */
async function editedInEditor(ctx: Context, api: Api, runId: string, flags: FlagsOf<typeof def>): Promise<number> {
  const io = ctx.io;
  const outcome = await editInEditor(ctx, api, runId, {
    format: flags.format,
    yes: Boolean(flags.yes),
    at: flags.field,
  });
  if (outcome.kind === 'unchanged') {
    io.info('No changes; nothing was sent.');
    if (io.json) io.writeJson({ changed: false });
    return 0;
  }
  if (outcome.kind === 'declined') {
    io.info(`Nothing was sent. Your edit is kept in ${outcome.kept}`);
    if (io.json) io.writeJson({ changed: false, kept: outcome.kept });
    return 0;
  }
  io.info(`✓ spec of ${runId} updated: ${changedFields(outcome.patch)}`);
  if (io.json) io.writeJson(outcome.spec);
  return 0;
}
