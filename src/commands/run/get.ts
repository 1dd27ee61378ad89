// `orc run get <id>`: one run.
import type { Context } from '../context.js';
import type { ArgsOf } from '../define.js';
import type { get as def } from './command.js';
import { printRun } from './show.js';
import { RunNames } from '../../api/run-names.js';

export default async function get(ctx: Context, [id]: ArgsOf<typeof def>): Promise<number> {
  const api = await ctx.api();
  const run = await api.runs.retrieve(id);
  // The name for a person, read once the run is found (a run that is not, or a service failing, costs no second
  // request); a run without a spec yet has none. --json is the run alone.
  const name = ctx.io.json ? null : await new RunNames(api).one(id);
  await printRun(ctx, run, name);
  return 0;
}
