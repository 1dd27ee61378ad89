// `orc logs <run>`: every build and QA log line of a run, from its event stream's history (or as it goes).
import { arg, command, flag, handled } from '../define.js';

export const logs = command({
  name: 'logs',
  summary: 'Show the log lines of a run: all of them, by stage, or the failing stage with its error',
  json: 'NDJSON: one { type: "log", seq, stage, level, message, ts } per line; with --failed, the run.failed event last',
  args: [arg.optionalId('run', { complete: 'runs' })],
  flags: {
    follow: flag.bool('keep printing lines as they come until the run ends', { short: 'f' }),
    stage: flag.string('stage', 'only the lines of this stage (05_build)'),
    failed: flag.bool('only the failing stage, then the error (like gh run view --log-failed)'),
  },
  examples: [
    'orc logs run_8fJ2kQ',
    'orc logs run_8fJ2kQ --failed',
    'orc logs run_8fJ2kQ --stage 05_build --json',
    'orc logs run_8fJ2kQ --follow',
  ],
  more:
    'Without --follow, a run still moving prints the history its stream replays, then stops once the stream ' +
    'has been quiet for half a second. A --stage the run never reached and never will (it has ended, or is ' +
    'past it) is exit 2, listing the stages it had.',
});

export default handled(logs, () => import('./show.js'));
