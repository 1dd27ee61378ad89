// `orc scorecard <run>`: how the app scored, and its pre-flight checks.
import { arg, command, handled } from '../define.js';

export const scorecard = command({
  name: 'scorecard',
  summary: 'Show the scorecard of a run: scores as bars, then the pre-flight checks',
  json: '{ score: { beauty, harmony, score, total }, passed, preflight: { passed, checks: [{ id, title, status, detail }] } }',
  args: [arg.optionalId('run', { complete: 'runs' })],
  examples: ['orc scorecard run_8fJ2kQ', 'orc scorecard run_8fJ2kQ --json | jq .passed'],
});

export default handled(scorecard, () => import('./show.js'));
