// Whether approving the final gate deserves a second look, asked by the gate prompt and by --approve.
import type { Api } from '../../api/index.js';

/** Why approving the final gate deserves a second look (the scorecard did not pass, a pre-flight check
 * failed), or null. The gate prompt and --approve both ask this. */
export async function finalGateDoubt(api: Api, runId: string): Promise<string | null> {
  const card = await api.runs.scorecard(runId).catch(() => null);
  if (!card) return null;
  const failed = card.preflight.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  if (!card.passed && failed.length)
    return `the scorecard did not pass (${card.score.score}/${card.score.total}) and pre-flight checks failed (${failed.join(', ')})`;
  if (!card.passed) return `the scorecard did not pass (${card.score.score}/${card.score.total})`;
  if (failed.length || !card.preflight.passed) return `pre-flight checks failed (${failed.join(', ') || 'pre-flight'})`;
  return null;
}
