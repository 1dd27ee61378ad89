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
    grep: flag.string('re', 'only the lines whose message matches this regular expression (JavaScript syntax)'),
    since: flag.string('duration', 'only the lines of the last <duration> (90s, 10m, 2h, 1d)'),
    tail: flag.int('n', 'only the last <n> lines; with --follow, the last <n> so far, then each as it comes', {
      min: 1,
    }),
  },
  examples: [
    'orc logs run_8fJ2kQ',
    'orc logs run_8fJ2kQ --failed',
    'orc logs run_8fJ2kQ --stage 05_build --json',
    'orc logs run_8fJ2kQ --follow',
    "orc logs run_8fJ2kQ --grep 'timeout|crash' --since 2h",
    'orc logs run_8fJ2kQ --tail 20 --follow',
  ],
  more:
    'Without --follow, a run still moving prints the history its stream replays, then stops once the stream ' +
    'has been quiet for half a second. A --stage the run never reached and never will (it has ended, or is ' +
    'past it) is exit 2, listing the stages it had. --stage, --since and --grep choose lines, in that order, ' +
    'and --tail keeps the last of those chosen (with --failed, of the failing stage).',
});

export default handled(logs, () => import('./show.js'));
