// `orc spec get <run>`: the App Spec as YAML for people, JSON with --format json; --json is one JSON document.
import type { Context } from '../context.js';
import { formatSpec } from '../../app-spec/document.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { get as def } from './command.js';

export default async function get(
  ctx: Context,
  [runId]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  const api = await ctx.api();
  const value = await api.spec.retrieve(runId);
  if (ctx.io.json) return (ctx.io.writeJson(value), 0);
  // The spec's text was sanitised where it entered orc (lib/sanitize.ts parseServiceJson).
  ctx.io.streams.stdout.write(await formatSpec(value, flags.format));
  return 0;
}
