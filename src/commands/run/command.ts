// `orc run …`: create, get, list and cancel runs.
import { MONETIZATION_VALUES, RUN_STATUSES } from '../../contract/events.js';
import { FOLLOW_FLAGS } from '../watch/flags.js';
import { LIST_FLAGS } from '../list-flags.js';
import { arg, command, flag, handled } from '../define.js';
import { changeFlags } from '../spec/change-flags.js';

export const create = command({
  name: 'create',
  summary: 'Create a run from an idea, or from source (ship mode)',
  json: 'the run: { id, mode, status, stage, gate_pending, app_id, created_at, updated_at }; with --watch, NDJSON as `watch` prints',
  flags: {
    mode: flag.choice('mode', ['idea', 'ship'], 'idea or ship (default: ship with --source, else idea)'),
    pitch: flag.string('text', 'idea mode: what the app is'),
    audience: flag.string('text', 'idea mode: who it is for'),
    monetization: flag.choice(
      'model',
      MONETIZATION_VALUES,
      'idea mode: free, paid, freemium, subscription, ads or in_app_purchases',
    ),
    source: flag.string(
      'repo-url|spec.json|-',
      'ship mode: a repository URL, an App Spec file, or - for either on stdin',
      { complete: 'files' },
    ),
    idempotencyKey: flag.string('key', 'your own key for this create (default: a new UUID, reused on every retry)'),
    watch: flag.bool('then watch it, as `orc watch` does (its flags below apply)'),
    ...FOLLOW_FLAGS,
  },
  examples: [
    'orc run create --pitch "A habit tracker for runners" --audience runners --monetization freemium --watch',
    'orc run create --source https://github.com/acme/trail-log.git --json',
    'cat spec.json | orc run create --source -',
  ],
});

export const get = command({
  name: 'get',
  summary: 'Show one run',
  json: 'the run: { id, mode, status, stage, gate_pending, app_id, created_at, updated_at }',
  args: [arg.id('run', { complete: 'runs' })],
  examples: ['orc run get run_8fJ2kQ', 'orc run get run_8fJ2kQ --json | jq -r .status'],
});

export const list = command({
  name: 'list',
  summary: 'List runs, newest first',
  json: 'an array of runs',
  flags: {
    status: flag.choice('status', RUN_STATUSES, 'only runs with this status'),
    ...LIST_FLAGS,
    watch: flag.bool(
      'redraw the list as the runs change, until Ctrl-C (at a terminal; scripts: orc watch --all --json)',
    ),
  },
  examples: [
    'orc run list',
    'orc run list --status awaiting_approval',
    'orc run list --all --json | jq length',
    'orc run list --watch',
  ],
});

export const cancel = command({
  name: 'cancel',
  summary: 'Cancel a run (asks first for a live run at a terminal)',
  json: 'the run, canceled',
  args: [arg.id('run', { complete: 'runs' })],
  flags: { yes: flag.bool('do not ask', { short: 'y' }) },
  examples: ['orc run cancel run_8fJ2kQ', 'orc run cancel run_8fJ2kQ --live --yes'],
});

export const retry = command({
  name: 'retry',
  summary: 'Start a new ship-mode run from the App Spec of a run (changed with --set/--unset/--file); prints its id',
  json: 'the new run, and retry_of: the id of the run it came from',
  args: [arg.id('run', { complete: 'runs' })],
  flags: {
    ...changeFlags,
    idempotencyKey: flag.string(
      'key',
      'your own key for this create (default: one made from the run and the spec sent, so the same retry twice makes one run)',
    ),
  },
  examples: [
    'orc run retry run_8fJ2kQ',
    'orc run retry run_8fJ2kQ --set tagline="Run every day" --unset keywords',
    'orc watch "$(orc run retry run_8fJ2kQ --file fix.json)"',
  ],
});

export default command({
  name: 'run',
  summary: 'Create, read, list, cancel and retry runs',
  examples: [
    'orc run create --pitch "A habit tracker" --audience runners --monetization freemium --watch',
    'orc run list --status awaiting_approval',
    'orc run get run_8fJ2kQ --json',
  ],
  subcommands: [
    handled(create, () => import('./create.js')),
    handled(get, () => import('./get.js')),
    handled(list, () => import('./list.js')),
    handled(cancel, () => import('./cancel.js')),
    handled(retry, () => import('./retry.js')),
  ],
});
