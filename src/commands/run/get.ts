// `orc run get <id>`: one run.
import type { Context } from '../context.js';
import type { ArgsOf } from '../define.js';
import type { get as def } from './command.js';
import { printRun } from './show.js';
import { RunNames } from '../../api/run-names.js';

export default async function get(ctx: Context, [id]: ArgsOf<typeof def>): Promise<number> {
  const api = await ctx.api();
  // The name for a person, read beside the run (a run without a spec yet has none); --json is the run alone.
  const name = ctx.io.json ? null : new RunNames(api).one(id);
  await printRun(ctx, await api.runs.retrieve(id), await name);
  return 0;
}
