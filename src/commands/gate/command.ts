// `orc gate …`: the approval gates of a run, listed and decided.
import { GATE_NAMES } from '../../contract/events.js';
import { arg, command, flag, handled } from '../define.js';
import { changeFlags } from '../spec/change-flags.js';

const notesFlags = {
  notes: flag.string('text', 'notes kept with the decision'),
  notesFile: flag.string('file|-', 'the notes from a file, or - for stdin', { complete: 'files' }),
} as const;

export const list = command({
  name: 'list',
  summary: 'The three gates of a run; with no run, the inbox: every gate waiting for a decision, oldest first',
  more:
    'With no <run>, every run waiting at a gate, oldest wait first: its name, the gate, how long it has waited, ' +
    'and for the final gate the score and whether pre-flight passed. At a terminal a line picked goes straight ' +
    'to the decision prompt `orc watch` asks at a gate.',
  json:
    'with <run>, an array of gates: { name, state, decided_at, notes, history: [{ decision, notes, decided_at }] }; ' +
    'with no run (the inbox), an array, oldest wait first, of ' +
    '{ run_id, name, gate, waiting_since, waited_s, score?, preflight_passed? } (score and preflight_passed at ' +
    'the final gate)',
  args: [arg.optionalId('run', { complete: 'runs' })],
  examples: ['orc gate list', 'orc gate list run_8fJ2kQ', 'orc gate list --json --jq ".[].run_id"'],
});

export const approve = command({
  name: 'approve',
  summary: 'Approve a pending gate (idea, brand or final), with a spec change sent first if given',
  json: '{ gate, run }: the gate as decided, and the run; with a spec change, spec_changed: [paths]',
  args: [arg.optionalId('run', { complete: 'gated-runs' }), arg.optionalId('gate', { complete: GATE_NAMES })],
  flags: { ...notesFlags, ...changeFlags },
  examples: [
    'orc gate approve run_8fJ2kQ idea',
    'orc gate approve run_8fJ2kQ final --notes "Ship it"',
    'orc gate approve run_8fJ2kQ brand --set tagline="Run every day" --unset keywords',
  ],
});

export const reject = command({
  name: 'reject',
  summary: 'Reject a pending gate with notes (and a spec change sent first if given); the run goes back to rework',
  json: '{ gate, run }: the gate as decided, and the run; with a spec change, spec_changed: [paths]',
  args: [arg.optionalId('run', { complete: 'gated-runs' }), arg.optionalId('gate', { complete: GATE_NAMES })],
  flags: {
    notes: flag.string('text', 'why, and what to change (required; at a terminal your editor opens without it)'),
    notesFile: notesFlags.notesFile,
    ...changeFlags,
  },
  examples: [
    'orc gate reject run_8fJ2kQ brand --notes "Warmer palette, less corporate"',
    'orc gate reject run_8fJ2kQ final --notes-file review.md',
    'orc gate reject run_8fJ2kQ brand --file palette.json --notes "Try this palette"',
  ],
});

export default command({
  name: 'gate',
  summary: 'List and decide the approval gates of a run',
  examples: [
    'orc gate list run_8fJ2kQ',
    'orc gate approve run_8fJ2kQ idea',
    'orc gate reject run_8fJ2kQ brand --notes "Warmer palette"',
  ],
  subcommands: [
    handled(list, () => import('./list.js')),
    handled(approve, () => import('./approve.js')),
    handled(reject, () => import('./reject.js')),
  ],
});
