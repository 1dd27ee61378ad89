// `orc watch <run>`: the live view of a run, with its gates decided right there.
import { arg, command, handled } from '../../cli/spec.js';
import { FOLLOW_FLAGS } from './flags.js';

export const watch = command({
  name: 'watch',
  summary: 'Watch a run live, deciding its gates as they open',
  json: 'NDJSON: one event envelope a line, { id, type, created_at, run_id, data }, as it arrives ("synthetic": true when polled)',
  args: [arg.optionalId('run', { complete: 'runs' })],
  flags: FOLLOW_FLAGS,
  examples: ['orc watch run_8fJ2kQ', 'orc watch run_8fJ2kQ --approve idea,brand,final --json', 'orc watch run_8fJ2kQ --until-gate --json | tail -n 1'],
});

export default handled(watch, () => import('./watch.js'));
