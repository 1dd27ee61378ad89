// `orc scorecard <run>`: how the app scored, and its pre-flight checks.
import { arg, command, handled } from '../define.js';

export const scorecard = command({
  name: 'scorecard',
  summary:
    'Show the scorecard of a run: scores, pre-flight checks with what to change, and what the scores are made of',
  json: '{ score: { beauty, harmony, score, total }, passed, preflight: { passed, checks: [{ id, title, status, detail, field, hint, suggestion }] }, components: [{ name, of, value, weight, detail, field, hint, suggestion }] }',
  args: [arg.optionalId('run', { complete: 'runs' })],
  examples: ['orc scorecard run_8fJ2kQ', 'orc scorecard run_8fJ2kQ --json | jq .passed'],
});

export default handled(scorecard, () => import('./show.js'));
