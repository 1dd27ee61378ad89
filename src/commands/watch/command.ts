// `orc watch <run>`: the live view of a run, with its gates decided right there.
import { arg, command, flag, handled } from '../define.js';
import { FOLLOW_FLAGS } from './flags.js';

export const watch = command({
  name: 'watch',
  summary: 'Watch a run live (or several, or --all), deciding their gates as they open',
  json: 'NDJSON: one event envelope a line, { id, type, created_at, run_id, data }, as it arrives ("synthetic": true when polled)',
  args: [arg.ids('run', { complete: 'runs' })],
  flags: { ...FOLLOW_FLAGS, all: flag.bool('every run not ended, in one view (a line per run; NDJSON with --json)') },
  examples: [
    'orc watch run_8fJ2kQ',
    'orc watch run_8fJ2kQ --approve idea,brand,final --json',
    'orc watch run_8fJ2kQ --until-gate --json | tail -n 1',
    'orc watch run_8fJ2kQ run_3Hq7Lm',
    'orc watch --all --approve idea --max-wait 10m',
  ],
  more: 'Several runs (or --all): a line per run at a terminal, a line per change otherwise, NDJSON under --json (each event carries its run_id). Gates are decided as for one run, one question at a time; the exit code is the worst among the runs (1 lost, 5 ended badly, 6 a gate waiting, 7 --max-wait ran out, 0 all accepted).',
});

export default handled(watch, () => import('./watch.js'));
