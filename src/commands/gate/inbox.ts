// `orc gate list` with no run: the inbox, every run waiting at a gate for a person, oldest wait first; at a
// terminal a line picked goes straight to the decision prompt `orc watch` asks at a gate.
import type { Api } from '../../api/index.js';
import { RunNames } from '../../api/run-names.js';
import type { Run } from '../../contract/schemas.js';
import { formatDuration } from '../../lib/duration.js';
import { oneLine } from '../../lib/sanitize.js';
import { orDash } from '../../ui/format.js';
import { printList } from '../../ui/list.js';
import type { Context } from '../context.js';

/** A line of the inbox, and its --json shape (documented in command.ts). */
export interface InboxLine {
  run_id: string;
  name: string | null;
  gate: string;
  waiting_since: string;
  waited_s: number;
  score?: number;
  preflight_passed?: boolean;
}

export default async function inbox(ctx: Context): Promise<number> {
  const api = await ctx.api();
  const lines = await inboxLines(api, ctx.clock.now());
  await printList<InboxLine>(ctx.io, {
    items: lines,
    empty: 'No gate waits for a decision.',
    columns: [
      { header: 'RUN', cell: (l) => l.run_id },
      { header: 'NAME', flexible: true, cell: (l) => orDash(l.name && oneLine(l.name)) },
      { header: 'GATE', cell: (l) => oneLine(l.gate) },
      { header: 'WAITING', cell: (l, tty) => (tty ? waited(l) : l.waiting_since) },
      { header: 'SCORE', cell: (l) => (l.score === undefined ? '—' : String(l.score)) },
      {
        header: 'PRE-FLIGHT',
        cell: (l) => (l.preflight_passed === undefined ? '—' : l.preflight_passed ? 'passed' : 'failed'),
      },
    ],
  });
  if (!ctx.io.canPrompt || lines.length === 0) return 0;
  return pickAndDecide(ctx, api, lines);
}

/** Every run at a gate, every page of them, oldest wait first; names and scorecards read a few at a time. */
export async function inboxLines(api: Api, now: number): Promise<InboxLine[]> {
  const runs: Run[] = [];
  for await (const run of api.runs.listAll({ status: 'awaiting_approval', limit: 100 }))
    if (run.gate_pending) runs.push(run);
  const names = new RunNames(api);
  const lines = await Promise.all(runs.map((run) => lineOf(api, names, run, now)));
  return lines.sort((a, b) => Date.parse(a.waiting_since) - Date.parse(b.waiting_since));
}

async function lineOf(api: Api, names: RunNames, run: Run, now: number): Promise<InboxLine> {
  const gate = run.gate_pending!;
  // Through the names' reader: one bound on the reads in flight for the whole inbox.
  const [name, card] = await Promise.all([
    names.one(run.id),
    gate === 'final' ? names.reader.run(() => api.runs.scorecard(run.id)).catch(() => null) : null,
  ]);
  // When the gate opened: a gate carries no opening time (its history holds decisions only), and the run's
  // updated_at is the last change of the run, which at a gate is its opening, unless the spec was edited there
  // since (then the wait counts from the edit: shorter, never longer). A service without updated_at: created_at.
  const since = run.updated_at ?? run.created_at;
  const line: InboxLine = {
    run_id: run.id,
    name,
    gate,
    waiting_since: since,
    waited_s: Math.max(0, Math.round((now - Date.parse(since)) / 1000)),
  };
  if (card) Object.assign(line, { score: card.score.score, preflight_passed: card.preflight.passed });
  return line;
}

const waited = (l: InboxLine) => formatDuration(l.waited_s * 1000, { compact: true });

/** The picker: a line chosen is decided at the prompt watch asks at a gate (its context, then the choices). */
async function pickAndDecide(ctx: Context, api: Api, lines: InboxLine[]): Promise<number> {
  const choices = lines.map((l) => ({
    value: l.run_id,
    name: `${l.run_id}  ${l.name ? `${oneLine(l.name)} · ` : ''}gate ${oneLine(l.gate)} · waiting ${waited(l)}`,
  }));
  const prompter = await ctx.prompter();
  const picked = await prompter.select('Decide which gate?', [...choices, { value: '', name: 'Not now' }], {
    signal: ctx.signal,
  });
  const line = lines.find((l) => l.run_id === picked);
  if (!line) return 0;
  const { decideAtPrompt } = await import('../watch/gate-prompt.js');
  // Decided, left pending or stopped are the person's choices (exit 0); a refusal throws with its exit code.
  await decideAtPrompt(ctx, api, line.run_id, line.gate, ctx.signal, { watching: false });
  return 0;
}
