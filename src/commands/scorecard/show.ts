// `orc scorecard <run>`: the bars (beauty, harmony, score/total, passed or not), the pre-flight checks as a
// table, failures first, each failing or warning one with its field, hint and suggestion, then the parts of
// beauty and harmony. Piped, the same layout as plain text, nothing cut; --json, the scorecard document.
import { ApiError } from '../../api/index.js';
import type { Context } from '../context.js';
import { RefusedError } from '../../exit/errors.js';
import { scorecardLines } from '../../ui/scorecard.js';
import { loadStyle } from '../../ui/style.js';
import type { ArgsOf } from '../define.js';
import type { scorecard as def } from './command.js';
import { pickRun } from '../pick.js';

export default async function show(ctx: Context, [given]: ArgsOf<typeof def>): Promise<number> {
  const runId = given ?? (await pickRun(ctx, 'any', 'scorecard')).id;
  const api = await ctx.api();
  let card;
  try {
    card = await api.runs.scorecard(runId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'scorecard_not_ready') {
      const run = await api.runs.retrieve(runId);
      throw new RefusedError(
        `run ${runId} has not been scored yet: it is ${run.status} at stage ${run.stage}`,
        `The scorecard comes when the run is scored (the run.scored event); \`orc watch ${runId}\` follows the run there.`,
      );
    }
    throw err;
  }
  if (ctx.io.json) return (ctx.io.writeJson(card), 0);
  const style = await loadStyle(ctx.io);
  // The same aligned layout piped as at a terminal (no colour there): a scorecard is read, not parsed. Only a
  // terminal's width cuts a line; piped, nothing is cut.
  const width = ctx.io.stdoutIsTTY ? ctx.io.columns : Number.POSITIVE_INFINITY;
  for (const line of scorecardLines(style, card, { width, components: true })) ctx.io.out(line);
  return 0;
}
