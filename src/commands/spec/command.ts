// `orc spec …`: a run's App Spec, read as YAML or JSON, edited the way `kubectl edit` works, and compared.
import { SPEC_FORMATS } from '../../app-spec/document.js';
import { arg, command, flag, handled } from '../define.js';
import { changeFlags } from './change-flags.js';

const format = flag.choice('format', SPEC_FORMATS, 'yaml (for people) or json', { default: 'yaml' });

export const get = command({
  name: 'get',
  summary: 'Print the App Spec of a run (YAML; --format json, or --json)',
  json: 'the App Spec',
  args: [arg.id('run', { complete: 'runs' })],
  flags: { format },
  examples: [
    'orc spec get run_8fJ2kQ',
    'orc spec get run_8fJ2kQ --format json > spec.json',
    'orc spec get run_8fJ2kQ --json | jq .brand.palette',
  ],
});

export const edit = command({
  name: 'edit',
  summary: 'Edit the App Spec in your editor, or with --set/--unset/--file; sends only what changed',
  json: 'the App Spec as updated; { "changed": false } when nothing was sent; with --dry-run, the merge patch',
  args: [arg.optionalId('run', { complete: 'runs' })],
  flags: {
    format,
    ...changeFlags,
    field: flag.string('dotted.path', 'open the editor at this field, marked with what the scorecard says to change'),
    dryRun: flag.bool('print the merge patch that would be sent, and send nothing'),
    yes: flag.bool('send without showing the diff and asking', { short: 'y' }),
  },
  examples: [
    'orc spec edit run_8fJ2kQ',
    'orc spec edit run_8fJ2kQ --set name=Stride --set brand.palette=\'["#FF6B35","#1A1A2E"]\'',
    'orc spec edit run_8fJ2kQ --unset tagline --dry-run',
    'orc spec edit run_8fJ2kQ --field brand.palette',
  ],
});

export const diff = command({
  name: 'diff',
  summary: 'Show what differs between the App Specs of two runs, or of a run and a JSON or YAML file (- for stdin)',
  json: 'the JSON Merge Patch (RFC 7396) that turns the first spec into the second; {} when they are the same',
  args: [arg.id('run', { complete: 'runs' }), arg.word('run-or-file', { complete: 'runs' })],
  examples: [
    'orc spec diff run_8fJ2kQ run_3pL9xZ',
    'orc spec diff run_8fJ2kQ spec.json',
    'orc spec get run_8fJ2kQ --json | jq \'.name = "Stride"\' | orc spec diff run_8fJ2kQ -',
    'orc spec diff run_8fJ2kQ run_3pL9xZ --json > patch.json',
  ],
});

export default command({
  name: 'spec',
  summary: 'Read, edit and compare the App Specs of runs',
  examples: [
    'orc spec get run_8fJ2kQ',
    'orc spec edit run_8fJ2kQ',
    'orc spec edit run_8fJ2kQ --set tagline="Run every day"',
    'orc spec diff run_8fJ2kQ run_3pL9xZ',
  ],
  subcommands: [
    handled(get, () => import('./get.js')),
    handled(edit, () => import('./edit.js')),
    handled(diff, () => import('./diff.js')),
  ],
});
