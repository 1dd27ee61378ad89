// `orc webhook …`: webhooks registered, read, removed; their deliveries; signatures checked offline; and a
// local listener that forwards the service's events to an app on this machine.
import { EVENT_KINDS } from '../../contract/events.js';
import { arg, command, flag, handled } from '../define.js';

const EVENTS_VALUE = 'kind,kind|*';
const eventsHelp = `event kinds, comma-separated, or * for all (${EVENT_KINDS.join(', ')})`;

export const add = command({
  name: 'add',
  summary: 'Register a webhook; prints its signing secret once',
  json: 'the webhook with its secret: { id, url, events, status, created_at, secret }',
  flags: {
    url: flag.string('url', 'where deliveries go: https://…, or http:// to this machine'),
    events: flag.string(EVENTS_VALUE, eventsHelp, { complete: ['*', ...EVENT_KINDS] }),
  },
  examples: [
    'orc webhook add --url https://example.com/hooks/orc --events run.gate_pending,run.accepted',
    'orc webhook add --url http://127.0.0.1:3000/hooks --events "*" --json',
  ],
});

export const list = command({
  name: 'list',
  summary: 'List webhooks (never their secrets)',
  json: 'an array of webhooks, never a secret',
  examples: ['orc webhook list', 'orc webhook list --json | jq -r ".[].id"'],
});

export const get = command({
  name: 'get',
  summary: 'Show one webhook (never its secret)',
  json: 'the webhook, never its secret',
  args: [arg.id('webhook', { complete: 'webhooks' })],
  examples: ['orc webhook get wh_4Tq9', 'orc webhook get wh_4Tq9 --json'],
});

export const remove = command({
  name: 'remove',
  summary: 'Remove a webhook (asks first at a terminal; --yes otherwise)',
  json: '{ id, deleted: true }',
  args: [arg.id('webhook', { complete: 'webhooks' })],
  flags: { yes: flag.bool('remove without asking', { short: 'y' }) },
  examples: ['orc webhook remove wh_4Tq9', 'orc webhook remove wh_4Tq9 --yes'],
});

export const deliveries = command({
  name: 'deliveries',
  summary: 'The deliveries of a webhook: event, status, attempts, last status code, next attempt',
  json: 'an array of { id, event_id, event_type, status, attempts, last_status_code, next_attempt_at, created_at }',
  args: [arg.id('webhook', { complete: 'webhooks' })],
  flags: {
    status: flag.choice('status', ['pending', 'succeeded', 'failed'] as const, 'only deliveries in this state'),
  },
  examples: ['orc webhook deliveries wh_4Tq9', 'orc webhook deliveries wh_4Tq9 --status failed --json'],
});

export const redeliver = command({
  name: 'redeliver',
  summary: 'Queue one delivery again (its retries start afresh)',
  json: 'the delivery, queued again',
  args: [arg.id('webhook', { complete: 'webhooks' }), arg.id('delivery')],
  examples: [
    'orc webhook redeliver wh_4Tq9 dlv_8Kx2',
    'orc webhook deliveries wh_4Tq9 --status failed --json | jq -r ".[].id" | xargs -n1 orc webhook redeliver wh_4Tq9',
  ],
});

export const verify = command({
  name: 'verify',
  summary: 'Check a delivery’s signature offline: exit 0 when valid, 3 with the reason when not',
  json: '{ valid: true, timestamp, signed_at, age_s } | { valid: false, reason, message }',
  flags: {
    secret: flag.string(
      'whsec_…|-',
      'the signing secret, or - to read it from stdin (keeps it out of the process list)',
    ),
    header: flag.string('value', 'the X-Service-Signature header as received (t=…,v1=…)'),
    payloadFile: flag.string('file|-', 'the raw body as received, from a file or - for stdin', { complete: 'files' }),
    tolerance: flag.int('seconds', 'how far the signature’s time may be from now', { min: 0, default: 300 }),
    now: flag.int('unix-seconds', 'the time to check against, for replaying an old capture (default: now)', { min: 0 }),
  },
  examples: [
    "orc webhook verify --secret - --header 't=1767225600,v1=5257a8…' --payload-file body.json < secret.txt",
    'orc webhook verify --secret whsec_… --header "$SIG" --payload-file - --now 1767225600 < body.json',
  ],
});

export const listen = command({
  name: 'listen',
  summary:
    'Receive events here: a webhook registered at a local listener while it runs, deliveries verified, shown and forwarded',
  json: 'NDJSON: each verified event as received, one a line',
  flags: {
    events: flag.string(EVENTS_VALUE, `${eventsHelp}; default *`, { complete: ['*', ...EVENT_KINDS] }),
    forwardTo: flag.string('url', 'POST each verified event to your app here, with its original body and headers'),
    port: flag.int('n', 'the port to listen on (default: any free one)', { min: 0, max: 65535, default: 0 }),
    host: flag.string('address', 'the address to listen on', { default: '127.0.0.1' }),
    publicUrl: flag.string(
      'url',
      'the address the service reaches this listener at (a tunnel), for a service that is not on this machine',
    ),
  },
  examples: [
    'orc webhook listen',
    'orc webhook listen --events run.gate_pending,run.accepted --forward-to http://localhost:3000/hooks',
    'orc webhook listen --json | jq -r .type',
    'orc webhook listen --port 8787 --public-url https://abc123.tunnel.example/orc-listen --live',
  ],
});

export default command({
  name: 'webhook',
  summary: 'Manage webhooks, check their signatures, and listen to them locally',
  examples: [
    'orc webhook add --url https://example.com/hooks --events run.accepted',
    'orc webhook list',
    'orc webhook deliveries wh_4Tq9 --status failed',
  ],
  subcommands: [
    handled(add, () => import('./add.js')),
    handled(list, () => import('./list.js')),
    handled(get, () => import('./get.js')),
    handled(remove, () => import('./remove.js')),
    handled(deliveries, () => import('./deliveries.js')),
    handled(redeliver, () => import('./redeliver.js')),
    handled(verify, () => import('./verify.js')),
    handled(listen, () => import('./listen.js')),
  ],
});
