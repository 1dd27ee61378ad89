// `orc sandbox …`: the local emulator of the service.
import { arg, command, flag, handled } from '../define.js';
import { EVENT_KINDS, GATE_NAMES } from '../../contract/events.js';
import { KNOBS as K } from '../../contract/sandbox-knobs.js';

const {
  host,
  port,
  stageMs,
  signedUrlTtl,
  retryBaseMs,
  rateLimit,
  seed,
  ipaMib,
  journalSize,
  keepDeliveries,
  keepaliveMs,
} = K;

export const start = command({
  name: 'start',
  summary: 'Start the sandbox (in the foreground unless --detach)',
  json: 'one line { listening: true, url, pid, data } once it listens (and ca_file with --tls); with --detach, { listening, url, pid, data, detached, log }',
  flags: {
    host: flag.string(host.value, host.description, { default: host.default }),
    port: flag.int(port.value, port.description, port),
    apiKey: flag.string(
      'key',
      "the test key the sandbox accepts (sk_test_…; default: ORC_SANDBOX_API_KEY, else its own: its data folder's, or a new one in memory)",
    ),
    stageMs: flag.int(stageMs.value, stageMs.description, stageMs),
    signedUrlTtl: flag.int(signedUrlTtl.value, signedUrlTtl.description, signedUrlTtl),
    retryBaseMs: flag.int(retryBaseMs.value, retryBaseMs.description, retryBaseMs),
    rateLimit: flag.int(rateLimit.value, rateLimit.description, rateLimit),
    seed: flag.int(seed.value, seed.description, seed),
    ipaMib: flag.int(ipaMib.value, ipaMib.description, ipaMib),
    dataDir: flag.string('dir', 'folder of the sandbox database (default: <config folder>/sandbox)', {
      complete: 'files',
    }),
    memory: flag.bool('keep state in memory only; nothing survives a restart'),
    detach: flag.bool('run in the background; pid and log in the config folder'),
    journalSize: flag.int(journalSize.value, journalSize.description, journalSize),
    keepDeliveries: flag.int(keepDeliveries.value, keepDeliveries.description, keepDeliveries),
    keepaliveMs: flag.int(keepaliveMs.value, keepaliveMs.description, keepaliveMs),
    clock: flag.choice(
      'mode',
      ['real', 'manual'],
      'real: time flows; manual: it stands still until `orc sandbox advance`',
      { default: 'real' },
    ),
    import: flag.string(
      'file',
      'start from a snapshot made by `orc sandbox export` (into memory or a fresh data folder)',
      { complete: 'files' },
    ),
    verbose: flag.bool('a line per request and webhook delivery on stderr'),
    tls: flag.bool(
      "serve https with a certificate of its own, signed by a private CA kept in the data folder (its path printed; trust it with NODE_EXTRA_CA_CERTS or a profile's --ca-file)",
    ),
    standInLive: flag.bool(
      'with --tls: stand in for the live service, also accepting the live key in ORC_SANDBOX_LIVE_KEY, to try a live profile end to end',
    ),
  },
  examples: [
    'orc sandbox start',
    'orc sandbox start --detach --stage-ms 500',
    'orc sandbox start --tls --detach',
    'orc sandbox start --port 0 --memory --clock manual --stage-ms 3h',
  ],
});

const control =
  'Against the sandbox the profile (or --base-url) points at; refused (exit 2) against a service that is not a sandbox.';

export const clock = command({
  name: 'clock',
  summary: 'Show the virtual time, whether it is steered, and the runs still moving',
  json: '{ mode: real|manual, now, next_due, runs: [{ id, status, stage, gate_pending }] }',
  examples: ['orc sandbox clock', 'orc sandbox clock --json | jq -r .now'],
  more: control,
});

export const advance = command({
  name: 'advance',
  summary: 'Move time: the whole clock --by a duration (manual mode), or one run --by a duration or --to a point',
  json: '{ mode, now, next_due, runs, fired?, run?, reached?, ticks? }',
  args: [arg.optionalWord('run', { complete: 'runs' })],
  flags: {
    by: flag.string('duration', 'how far: 90s, 15m, 3h, 2d, or plain seconds'),
    to: flag.string('point', 'with a run: a stage (05_build), gate:NAME (approving the gates before it) or end'),
  },
  examples: [
    'orc sandbox advance --by 1d',
    'orc sandbox advance run_8fJ2kQ --to gate:final',
    'orc sandbox advance run_8fJ2kQ --by 3h',
  ],
  more: control,
});

export const trigger = command({
  name: 'trigger',
  summary:
    'Make the sandbox produce an event for real (a run driven there; a new fixture run without --run); prints the run id',
  json: '{ run, event }',
  args: [arg.word('event-kind', { complete: EVENT_KINDS })],
  flags: {
    run: flag.id('run', 'the run to drive (default: a new fixture run)'),
    stage: flag.string('stage', 'run.failed: where it fails (default 05_build); run.stage_changed: the stage to reach'),
    gate: flag.choice('gate', GATE_NAMES, 'run.gate_pending and run.gate_resolved: which gate (default idea)'),
    error: flag.string('code: message', 'run.failed: the error (default build_failed: …)'),
    reason: flag.string('text', 'run.rejected: the reason; run.gate_resolved: reject with these notes'),
    notPassed: flag.bool('run.scored: a scorecard that does not pass'),
  },
  examples: [
    'orc sandbox trigger run.failed --stage 06_qa --error "qa_failed: crash on launch"',
    'orc sandbox trigger run.gate_pending --gate final --json',
    'orc sandbox trigger run.accepted',
  ],
  more: control,
});

export const faultAdd = command({
  name: 'add',
  summary: "Inject a fault into the sandbox's own answers (or its webhook deliveries)",
  json: 'the fault: { id, route | webhook, status, latency_ms, reset, cut_after, times, probability, seed, applied }',
  flags: {
    route: flag.string('METHOD /path', "the requests it takes: 'POST /v1/runs', 'GET /v1/runs/{run}/events'"),
    webhook: flag.id('webhook', 'instead: deliveries to this webhook fail (the sandbox answers for the receiver)'),
    status: flag.choice('code', ['429', '500', '503'], 'answer with this status and its error envelope'),
    latency: flag.string('duration', 'wait this long first (300ms, 2s)'),
    reset: flag.bool('reset the connection instead of answering'),
    cutAfter: flag.int('n', 'cut an event stream after this many events', { min: 1 }),
    times: flag.int('n', 'only this many times', { min: 1 }),
    probability: flag.string('p', 'only with this chance, 0 to 1'),
    seed: flag.int('n', 'the seed of the chance (the same seed, the same requests hit)', { min: 0 }),
  },
  examples: [
    "orc sandbox fault add --route 'POST /v1/runs' --status 503 --times 1",
    "orc sandbox fault add --route 'GET /v1/runs/{run}/events' --cut-after 3",
    "orc sandbox fault add --route 'GET /v1/runs' --latency 2s --probability 0.5 --seed 7",
  ],
  more: control,
});
export const faultList = command({
  name: 'list',
  summary: 'List the faults and how often each was applied',
  json: 'an array of faults',
  examples: ['orc sandbox fault list'],
});
export const faultRemove = command({
  name: 'remove',
  summary: 'Remove a fault',
  json: '{ id, removed: true }',
  args: [arg.word('id')],
  examples: ['orc sandbox fault remove flt_1'],
});
export const faultClear = command({
  name: 'clear',
  summary: 'Remove every fault',
  json: '{ cleared: true }',
  examples: ['orc sandbox fault clear'],
});
export const fault = command({
  name: 'fault',
  summary: "Inject faults into the sandbox's answers, for testing a client's retries",
  examples: [
    "orc sandbox fault add --route 'POST /v1/runs' --status 503 --times 1",
    'orc sandbox fault list',
    'orc sandbox fault clear',
  ],
  subcommands: [
    handled(faultAdd, () => import('./fault.js').then((m) => ({ default: m.add }))),
    handled(faultList, () => import('./fault.js').then((m) => ({ default: m.list }))),
    handled(faultRemove, () => import('./fault.js').then((m) => ({ default: m.remove }))),
    handled(faultClear, () => import('./fault.js').then((m) => ({ default: m.clear }))),
  ],
});

export const reset = command({
  name: 'reset',
  summary: 'Empty the sandbox: runs, webhooks, deliveries and faults (the key and knobs stay)',
  json: '{ reset: true }',
  flags: { yes: flag.bool('do not ask', { short: 'y' }) },
  examples: ['orc sandbox reset --yes'],
  more: control,
});

export const exportCmd = command({
  name: 'export',
  summary:
    'Write a consistent snapshot of the sandbox to a file (atomically, as it arrives), or to stdout with -, for `sandbox start --import`',
  json: '{ file, runs, webhooks, deliveries } (with -, stdout is the snapshot itself)',
  args: [arg.word('file')],
  examples: ['orc sandbox export fixtures/two-runs.json', 'orc sandbox export - | gzip > snapshot.json.gz'],
  more: control,
});

export const exec = command({
  name: 'exec',
  summary:
    "Run a command against a fresh in-memory sandbox on a free port, then stop it; exits with the command's status",
  json: "none: the command's own output",
  args: [arg.rest('command')],
  flags: {
    stageMs: flag.int(stageMs.value, stageMs.description, stageMs),
    retryBaseMs: flag.int(retryBaseMs.value, retryBaseMs.description, retryBaseMs),
    rateLimit: flag.int(rateLimit.value, rateLimit.description, rateLimit),
    seed: flag.int(seed.value, seed.description, seed),
    ipaMib: flag.int(ipaMib.value, ipaMib.description, ipaMib),
    clock: flag.choice('mode', ['real', 'manual'], 'real: time flows; manual: it stands still until advanced', {
      default: 'real',
    }),
    import: flag.string('file', 'start from a snapshot', { complete: 'files' }),
  },
  examples: [
    'orc sandbox exec -- npm test',
    'orc sandbox exec --stage-ms 50 -- ./ci/e2e.sh',
    'orc sandbox exec --import fixtures/two-runs.json -- node check.js',
  ],
  more: 'The command gets ORC_BASE_URL and ORC_SANDBOX_URL (the sandbox) and ORC_API_KEY (its test key) in its environment.',
});

export const logs = command({
  name: 'logs',
  summary:
    'Show the requests the sandbox answered and its webhook delivery attempts (the last 1,000, or --journal-size)',
  json: 'an array of entries; with --follow, NDJSON: { seq, at, type: request|delivery, … }',
  flags: { follow: flag.bool('keep printing new entries until Ctrl-C', { short: 'f' }) },
  examples: [
    'orc sandbox logs',
    'orc sandbox logs --follow',
    'orc sandbox logs --json | jq ".[] | select(.status >= 500)"',
  ],
  more: control,
});

export const status = command({
  name: 'status',
  summary: 'Say whether a background sandbox is running, and where (exit 1 if not)',
  json: '{ running, url, pid, started_at, data, … } (the key redacted) | { running: false }',
  examples: ['orc sandbox status', 'orc sandbox status --json'],
});

export const consoleCmd = command({
  name: 'console',
  summary: 'Print a one-time link to the web console, and open it in the browser at a terminal',
  json: '{ url, expires_at } (never opens a browser)',
  flags: { open: flag.negatable('print the link only; do not open a browser') },
  examples: ['orc sandbox console', 'orc sandbox console --no-open', 'orc sandbox console --json | jq -r .url'],
  more: `The link works once, within 10 minutes, and becomes a session cookie in that browser; the key never reaches the page. ${control}`,
});

export const stop = command({
  name: 'stop',
  summary: 'Stop the background sandbox',
  json: '{ stopped, pid, url } | { stopped: false, running: false[, stale, pid] }',
  examples: ['orc sandbox stop', 'orc sandbox stop --json'],
});

export default command({
  name: 'sandbox',
  summary: 'Run the local emulator of the Run Orchestration Service',
  examples: ['orc sandbox start --detach', 'orc sandbox status', 'orc sandbox stop'],
  subcommands: [
    handled(start, () => import('./start.js')),
    handled(status, () => import('./status.js')),
    handled(stop, () => import('./stop.js')),
    handled(clock, () => import('./clock.js')),
    handled(advance, () => import('./advance.js')),
    handled(trigger, () => import('./trigger.js')),
    fault,
    handled(reset, () => import('./reset.js')),
    handled(exportCmd, () => import('./export.js')),
    handled(exec, () => import('./exec.js')),
    handled(logs, () => import('./logs.js')),
    handled(consoleCmd, () => import('./console.js')),
  ],
});
