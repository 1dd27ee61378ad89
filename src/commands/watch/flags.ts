// How `watch` and `run create --watch` treat gates.
import { GATE_NAMES } from '../../contract/events.js';
import { flag } from '../define.js';

export const FOLLOW_FLAGS = {
  onGate: flag.choice(
    'mode',
    ['prompt', 'wait', 'exit'],
    'when a gate opens: prompt (ask here), wait (someone else decides), exit (exit 6); default prompt at a terminal, else wait',
  ),
  approve: flag.list('gates', GATE_NAMES, 'approve these gates when they open, e.g. idea,brand,final', {
    complete: ['idea,brand,final', 'idea', 'brand', 'final'],
  }),
  untilGate: flag.bool('stop at the first pending gate with exit 6 (with --json, the gate event is the last line)'),
  bell: flag.negatable('do not ring the terminal bell when a gate opens'),
  notify: flag.bool(
    "when a gate opens or a run ends, a notification: the terminal's (OSC 9/777), else notify-send or osascript, else the bell",
  ),
  onGateExec: flag.string(
    'command',
    'run this shell command for each gate that opens: the event as JSON on stdin, ORC_RUN_ID, ORC_GATE, ORC_HINT set',
  ),
  maxWait: flag.seconds(
    'duration',
    'return after this long at most (90s, 15m, 2h): exit 7 if the run neither ended nor reached a gate (it goes on); a gate not in --approve stops it with exit 6',
    { min: 1 },
  ),
} as const;
