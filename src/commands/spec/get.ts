// `orc spec get <run>`: the App Spec as YAML for people, JSON with --format json; --json is one JSON document.
import type { Context } from '../../context.js';
import { formatSpec } from '../../app-spec/document.js';
import { sanitize } from '../../ui/sanitize.js';
import type { ArgsOf, FlagsOf } from '../../cli/spec.js';
import type { get as spec } from './command.js';

export default async function get(ctx: Context, [runId]: ArgsOf<typeof spec>, flags: FlagsOf<typeof spec>): Promise<number> {
  const api = await ctx.api();
  const value = await api.spec.retrieve(runId);
  if (ctx.io.json) return ctx.io.writeJson(value), 0;
  // Service text reaches a terminal sanitised; a file or pipe gets the document as it is.
  const text = await formatSpec(value, flags.format);
  ctx.io.streams.stdout.write(ctx.io.stdoutIsTTY ? sanitize(text) : text);
  return 0;
}
