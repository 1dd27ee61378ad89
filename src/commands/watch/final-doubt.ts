// Whether approving the final gate deserves a second look, asked by the gate prompt and by --approve.
import type { Api } from '../../api/index.js';
import type { Scorecard } from '../../contract/schemas.js';

/** Why approving the final gate deserves a second look (the scorecard did not pass, a pre-flight check
 * failed), or null. The gate prompt and --approve both ask this. */
export async function finalGateDoubt(api: Api, runId: string): Promise<string | null> {
  const card = await api.runs.scorecard(runId).catch(() => null);
  return card ? doubtOf(card) : null;
}

export function doubtOf(card: Scorecard): string | null {
  const failed = card.preflight.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  if (!card.passed && failed.length)
    return `the scorecard did not pass (${card.score.score}/${card.score.total}) and pre-flight checks failed (${failed.join(', ')})`;
  if (!card.passed) return `the scorecard did not pass (${card.score.score}/${card.score.total})`;
  if (failed.length || !card.preflight.passed) return `pre-flight checks failed (${failed.join(', ') || 'pre-flight'})`;
  return null;
}

/** Where the gate prompt offers to edit the spec, once a field, with the first value suggested there: the
 * fields of the failing checks; when none fails but the score did not pass, those of the parts below 100, the
 * most to gain first. */
export function fixesOf(card: Scorecard): Array<{ field: string; suggestion: unknown }> {
  const failing = card.preflight.checks.filter((c) => c.status === 'fail');
  const parts = card.passed ? [] : (card.components ?? []).filter((c) => c.value < 100);
  parts.sort((a, b) => (100 - b.value) * b.weight - (100 - a.value) * a.weight);
  const fixes: Array<{ field: string; suggestion: unknown }> = [];
  for (const c of failing.length ? failing : parts) {
    if (!c.field) continue;
    const known = fixes.find((f) => f.field === c.field);
    if (!known) fixes.push({ field: c.field, suggestion: c.suggestion ?? null });
    else if (known.suggestion === null) known.suggestion = c.suggestion ?? null;
  }
  return fixes;
}
