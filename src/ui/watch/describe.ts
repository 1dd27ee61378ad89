// One line of words for a run event, shared by the plain and terminal renderers (its text was sanitised where it
// entered orc: the watch engine reads events through lib/sanitize.ts parseServiceJson).
import type { Event } from '../../contract/schemas.js';
import { oneLine } from '../../lib/sanitize.js';

export function describeEvent(e: Event): string {
  const d = e.data;
  const s = (v: unknown) => oneLine(String(v ?? ''));
  switch (e.type) {
    case 'run.created':
      return `created (${s(d.mode)} mode)`;
    case 'run.stage_changed':
      return `${s(d.stage)}${typeof d.percent === 'number' ? ` ${d.percent}%` : ''}`;
    case 'run.gate_pending':
      return `gate ${s(d.gate)} awaits a decision`;
    case 'run.gate_resolved':
      return `gate ${s(d.gate)} ${s(d.decision)}${d.notes ? ` — “${s(d.notes)}”` : ''}`;
    case 'run.scored':
      return d.score
        ? `scored ${d.score.score}/${d.score.total} (beauty ${d.score.beauty}, harmony ${d.score.harmony}), ${d.passed ? 'passed' : 'did not pass'}`
        : 'scored';
    case 'run.accepted':
      return `accepted: app ${s(d.app_id)}${d.app_store_url ? ` ${s(d.app_store_url)}` : ''}`;
    case 'run.rejected':
      return `rejected: ${s(d.reason ?? 'no reason given')}`;
    case 'run.failed':
      return `failed at ${s(d.stage)}${d.error ? `: ${s(d.error.code)}: ${s(d.error.message)}` : ''}`;
    case 'run.canceled':
      return `canceled${d.stage ? ` at ${s(d.stage)}` : ''}`;
    default:
      return `${s(e.type)} ${JSON.stringify(d)}`;
  }
}
