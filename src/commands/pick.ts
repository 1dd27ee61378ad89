// A run left out of the command line: at a terminal, the runs that fit are offered newest first (as
// `gh run watch` does); without one it is exit 2 naming the missing argument.
import type { Context } from './context.js';
import type { Run } from '../contract/schemas.js';
import { TERMINAL_STATUSES } from '../contract/events.js';
import { UsageError } from '../exit/errors.js';
import { relativeTime } from '../ui/format.js';
import { oneLine } from '../lib/sanitize.js';
import { rememberingNames } from '../config/name-memory.js';

/** Which runs a command can act on. */
export type Fit = 'moving' | 'gated' | 'ended' | 'any';

const WHAT: Record<Fit, string> = { moving: 'still moving', gated: 'waiting at a gate', ended: 'ended', any: '' };

export async function pickRun(ctx: Context, fit: Fit, command: string): Promise<Run> {
  if (!ctx.io.canPrompt)
    throw Object.assign(
      new UsageError(
        `missing <run>: \`orc ${command} <run>\` needs a run id (at a terminal orc offers the runs${fit === 'any' ? '' : ` ${WHAT[fit]}`})`,
      ),
      { field: '<run>' },
    );
  const api = await ctx.api();
  const page = await api.runs.list({ limit: 100, ...(fit === 'gated' ? { status: 'awaiting_approval' } : {}) });
  const runs = page.data.filter((r) =>
    fit === 'moving' ? !TERMINAL_STATUSES.has(r.status) : fit === 'ended' ? TERMINAL_STATUSES.has(r.status) : true,
  );
  if (runs.length === 0)
    throw new UsageError(
      `no run${fit === 'any' ? '' : ` ${WHAT[fit]}`} to pick from: give a run id`,
      'See `orc run list`.',
    );
  const now = ctx.clock.now();
  const names = await (await rememberingNames(api, ctx.configDir)).ofRuns(runs);
  const named = (id: string) => (names.get(id) ? `${oneLine(names.get(id)!)} · ` : '');
  const choices = runs.map((r) => ({
    value: r.id,
    name: `${r.id}  ${named(r.id)}${oneLine(r.status)} · ${r.gate_pending ? `gate ${oneLine(r.gate_pending)}` : oneLine(r.stage)} · ${relativeTime(r.created_at, now)}`,
  }));
  const id = await (await ctx.prompter()).select(`Which run${fit === 'any' ? '' : ` (${WHAT[fit]})`}?`, choices);
  return runs.find((r) => r.id === id)!;
}
