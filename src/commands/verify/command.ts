// `orc verify`: the target (the active profile's, or --profile / ORC_BASE_URL) held against the contract, read-only.
import { command, handled } from '../define.js';

export const verify = command({
  name: 'verify',
  summary: 'Check a target against the contract orc speaks (read-only) and print every place it differs',
  json: '{ target, checked: [operation], divergences: [{ operation, path, expected, got }], skipped: [{ operation, why }], wrote }',
  examples: ['orc verify', 'orc verify --profile prod --live', 'orc verify --json | jq ".divergences"'],
  more: [
    'Reads every list and get it can reach (runs and a page walk, a run, its gates, spec, artifacts manifest,',
    'scorecard, webhooks and deliveries), an error answer (an id that cannot exist), the limits (limit=0, 101),',
    "the headers every answer carries, and one run's event stream (framing, ids, each event's envelope).",
    'Nothing is created or changed. Exit 0 when nothing diverges, 3 when something does; a target that is not',
    'the service at all: one line, exit 1 (4 when the key is refused).',
  ].join('\n'),
});

export default handled(verify, () => import('./check.js'));
