// Which MCP tools `orc mcp` offers: the toolsets (--toolsets, --sandbox-tools), --read-only, --tools and the live
// rules, in one fixed order whatever the flags' order, so a client's tool list (and its cache) is stable.
import { UsageError } from '../exit/errors.js';
import { commaList } from '../lib/comma-list.js';
import type { ToolDef } from './server.js';

/** Every toolset, in the order its tools are listed. A name absent from the tool table is passed over. */
export const TOOLSETS = {
  runs: ['list_runs', 'get_run', 'create_run', 'cancel_run', 'wait_for_run'],
  gates: ['list_gates', 'approve_gate', 'reject_gate'],
  spec: ['get_spec', 'update_spec', 'get_scorecard'],
  artifacts: ['list_artifacts', 'get_artifact', 'pull_artifacts'],
  webhooks: ['list_webhooks', 'add_webhook', 'remove_webhook', 'list_deliveries', 'redeliver_delivery'],
  sandbox: ['advance_clock', 'trigger_event', 'reset_sandbox'],
} as const;
export type Toolset = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as Toolset[];
export const DEFAULT_TOOLSETS: readonly Toolset[] = ['runs', 'gates', 'spec', 'artifacts'];

const EVERY_BUT_SANDBOX = TOOLSET_NAMES.filter((s) => s !== 'sandbox');

/** A live key offers these only when --tools names them. */
const LIVE_GUARDED = ['cancel_run', 'reject_gate'];

export interface PickFlags {
  toolsets?: readonly string[] | undefined;
  sandboxTools?: boolean | undefined;
  readOnly?: boolean | undefined;
  tools?: string | undefined;
}

/** The toolset a tool belongs to (undefined for a tool in none). */
export function toolsetOf(name: string): Toolset | undefined {
  return TOOLSET_NAMES.find((set) => (TOOLSETS[set] as readonly string[]).includes(name));
}

/** The tools offered, in toolset order: those of the toolsets asked for (--sandbox-tools adds `sandbox`), then
 * narrowed by --tools (each a tool there is; --tools alone: of every toolset but sandbox) and --read-only; on a live key no sandbox tools, and no cancel or
 * reject unless named. `all`: every tool there is, sandbox's included. */
export function pickTools(all: readonly ToolDef[], flags: PickFlags, mode: string): ToolDef[] {
  // --tools alone picks from every toolset but the sandbox's (naming a tool is asking for it); with --toolsets,
  // from those.
  const sets = new Set<string>(flags.toolsets ?? (flags.tools !== undefined ? EVERY_BUT_SANDBOX : DEFAULT_TOOLSETS));
  if (flags.sandboxTools) sets.add('sandbox');
  if (sets.has('sandbox') && mode === 'live')
    throw new UsageError(
      'the sandbox tools (--toolsets sandbox, --sandbox-tools) steer the sandbox; never with --live',
    );
  const byName = new Map(all.map((t) => [t.name, t]));
  const offered = TOOLSET_NAMES.filter((s) => sets.has(s)).flatMap((s) =>
    TOOLSETS[s].flatMap((name) => byName.get(name) ?? []),
  );
  const named = namedTools(flags.tools, offered);
  let tools = named ? offered.filter((t) => named.includes(t.name)) : offered;
  if (flags.readOnly) tools = tools.filter((t) => t.annotations.readOnlyHint);
  // A live server does not cancel or reject unless it was told to, by name.
  if (mode === 'live') tools = tools.filter((t) => !LIVE_GUARDED.includes(t.name) || named?.includes(t.name));
  if (tools.length === 0)
    throw new UsageError('no tools left to offer: --read-only keeps only reads, and none of --tools is one');
  return tools;
}

/** --tools as a list of names, each a tool of the toolsets offered (null: not given). */
function namedTools(flag: string | undefined, offered: readonly ToolDef[]): string[] | null {
  if (flag === undefined) return null;
  const named = commaList(flag);
  const names = offered.map((t) => t.name);
  const unknown = named.filter((t) => !names.includes(t));
  if (unknown.length || named.length === 0)
    throw new UsageError(
      `--tools: ${unknown.length ? `unknown ${unknown.map((t) => JSON.stringify(t)).join(', ')}` : 'name at least one'}; the tools of the toolsets offered (--toolsets): ${names.join(', ')}`,
    );
  return named;
}
