// `orc verify`: the target (the active profile's, or --profile / ORC_BASE_URL) held against the contract:
// read-only, and with --write what changes something too.
import { command, handled } from '../define.js';
import { flag } from '../flags.js';

export const verify = command({
  name: 'verify',
  summary: 'Check a target against the contract orc speaks (read-only unless --write) and print every place it differs',
  json: '{ target, checked: [operation], divergences: [{ operation, path, expected, got }], skipped: [{ operation, why }], wrote }',
  flags: {
    write: flag.bool(
      'also create a run (replayed, canceled) and a webhook to a loopback listener (signature, retry), all undone after',
    ),
    yes: flag.bool('with --write and --live: mean it (a run and a webhook are made on the live service)', {
      short: 'y',
    }),
  },
  examples: [
    'orc verify',
    'orc verify --write',
    'orc verify --profile prod --live',
    'orc verify --json | jq ".divergences"',
  ],
  more: [
    'Reads every list and get it can reach (runs and a page walk, a run, its gates, spec, artifacts manifest,',
    'scorecard, webhooks and deliveries; the gates and spec of a run waiting at a gate too), an error answer (an',
    "id that cannot exist), the limits (limit=0, 101), the headers every answer carries, and one run's event",
    "stream (framing, ids, each event's envelope; closed after the terminal event; a moving run's read 10 s at",
    'most). Text with control characters in it is a divergence. A 429 or 503 is waited out as any request of orc;',
    'a route still rate-limited, one the key may not read (403), or one not reached (no run, a list that failed)',
    'is listed as skipped, with why. Nothing is created or changed unless --write is given. Exit 0 when nothing',
    'diverges, 3 when something does; a target that is not the service at all: one line, exit 1 (4 when the key',
    'is refused); Ctrl-C: 130.',
    '',
    "With --write it also creates a run marked as orc verify's, replays its create (the same Idempotency-Key:",
    'the original 201, no second run; another body: 422), cancels it, registers a webhook to a listener of its',
    "own on loopback, checks each delivery's signature, headers and Event envelope and that one answered 500 is",
    'retried (it waits up to 60 s), then removes the webhook. What it made is undone on a failure and on Ctrl-C.',
    'Test keys only: with a live key it needs --live --yes (--yes without --write is a usage error). Against a',
    'target not on this machine the webhook checks are skipped (the target cannot reach the listener), and said so.',
  ].join('\n'),
});

export default handled(verify, () => import('./check.js'));
