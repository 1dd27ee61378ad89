// The parts of the OpenAPI document that are the sandbox's own: the signed files under /files/ (the layout
// after /files/ is the sandbox's; the service's file URLs are opaque) and the admin API under /_sandbox/
// (src/sandbox/admin.ts), marked with the tag `sandbox` and `x-orc-sandbox-only: true`.
import { ARTIFACT_KINDS, EVENT_KINDS, GATE_NAMES, JSON_ARTIFACT_KINDS } from './events.js';
import { MAX_BODY_BYTES, MAX_DEPTH } from './limits.js';

/** What JSON Schema cannot say of a request body (src/sandbox/body.ts), said in words on every one. */
export const NESTING = `JSON nested at most ${MAX_DEPTH} levels deep (deeper: 400 invalid_json), at most ${MAX_BODY_BYTES >> 20} MiB (413)`;

type JsonObject = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject, description: string, headers?: JsonObject) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});
const str = { type: 'string' };

/** What every event stream's head carries (src/sandbox/sse-writer.ts). */
export const STREAM_HEADERS: JsonObject = {
  'Cache-Control': { description: 'no-cache', required: true, schema: str },
  'X-Accel-Buffering': {
    description: 'no: a proxy such as nginx passes each event on at once',
    required: true,
    schema: str,
  },
};
const int = { type: 'integer' };
const obj = (properties: JsonObject, required: string[] = []) => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
});

/** The admin API's shapes (src/contract/sandbox-control.ts), as JSON Schema. */
// oxlint-disable-next-line max-lines-per-function -- a data table: the admin API's schemas
export function sandboxSchemas(): JsonObject {
  const movingRun = obj({ id: str, status: str, stage: str, gate_pending: { type: ['string', 'null'] } }, [
    'id',
    'status',
    'stage',
    'gate_pending',
  ]);
  const faultParams = {
    route: { ...str, description: '`METHOD /path`; a `{name}` segment matches any one segment' },
    webhook: { ...str, description: 'Instead of a route: every delivery attempt to this webhook fails' },
    status: { type: 'integer', minimum: 100, maximum: 599 },
    latency_ms: { type: 'integer', minimum: 0 },
    reset: { type: 'boolean' },
    cut_after: { type: 'integer', minimum: 0 },
    times: { type: 'integer', minimum: 1 },
    probability: { type: 'number', minimum: 0, maximum: 1 },
    seed: int,
  };
  return {
    SandboxClock: obj(
      {
        mode: { type: 'string', enum: ['manual', 'real'] },
        now: { ...str, format: 'date-time' },
        next_due: { type: ['string', 'null'] },
        runs: { type: 'array', items: movingRun },
      },
      ['mode', 'now', 'next_due', 'runs'],
    ),
    SandboxAdvanceParams: obj({
      by: { type: ['string', 'integer'], description: 'A duration ("90s", "3h") or milliseconds' },
      run: str,
      to: { ...str, description: 'With run: a stage, `gate:NAME` or `end`' },
    }),
    SandboxAdvanceResult: {
      allOf: [ref('SandboxClock'), obj({ fired: int, run: ref('Run'), reached: { type: 'boolean' }, ticks: int })],
    },
    SandboxTriggerParams: obj(
      {
        kind: { type: 'string', enum: [...EVENT_KINDS] },
        run: str,
        stage: str,
        gate: { type: 'string', enum: [...GATE_NAMES] },
        error: { ...str, description: '`code: message`, for run.failed' },
        reason: str,
        passed: { type: 'boolean' },
      },
      ['kind'],
    ),
    SandboxTriggerResult: obj({ run: ref('Run'), event: ref('Event') }, ['run', 'event']),
    SandboxFaultParams: obj(faultParams),
    SandboxFault: obj({ ...faultParams, id: str, applied: { type: 'integer', minimum: 0 } }, ['id', 'applied']),
    SandboxFaultList: obj({ data: { type: 'array', items: ref('SandboxFault') } }, ['data']),
    SandboxFaultRemoved: obj({ id: str, removed: { const: true } }, ['id', 'removed']),
    SandboxFaultsCleared: obj({ cleared: { const: true } }, ['cleared']),
    SandboxResetDone: obj({ reset: { const: true } }, ['reset']),
    SandboxSnapshot: obj(
      {
        format: { const: 'orc-sandbox-snapshot' },
        schema: int,
        exported_at: str,
        runs: { type: 'array', items: { type: 'object' } },
        events: {
          type: 'object',
          description: "Each run's stored events, by run id",
          additionalProperties: { type: 'array', items: { type: 'object' } },
        },
        webhooks: { type: 'array', items: { type: 'object' } },
        deliveries: { type: 'array', items: { type: 'object' } },
      },
      ['format', 'schema'],
    ),
    SandboxJournalPage: obj(
      {
        data: { type: 'array', items: obj({ seq: int, at: str, type: { type: 'string' } }, ['seq', 'type']) },
        last: int,
      },
      ['data', 'last'],
    ),
    SandboxConsoleLink: obj({ url: str, expires_at: str }, ['url', 'expires_at']),
    SandboxStats: obj(
      {
        memory: obj({ rss: int, heap_used: int, heap_total: int, external: int }),
        webhooks: obj({ deliveries_in_play: int, events_queued: int, webhooks_behind: int }),
      },
      ['memory', 'webhooks'],
    ),
  };
}

type Errors = (...statuses: number[]) => JsonObject;
const FILE_KINDS = ARTIFACT_KINDS.filter((k) => !JSON_ARTIFACT_KINDS.has(k));
const SANDBOX = { tags: ['sandbox'], 'x-orc-sandbox-only': true } as const;
const sse = (description: string) => ({ description, headers: STREAM_HEADERS, content: { 'text/event-stream': {} } });

/** `/files/…`: the signed file URLs an artifact's `files[].url` gives, as the sandbox lays them out. */
export function filePaths(errors: Errors): JsonObject {
  const seg = (name: string, description: string, extra: JsonObject = {}) => ({
    name,
    in: 'path',
    required: true,
    description,
    schema: { type: 'string', minLength: 1, ...extra },
  });
  const q = (name: string, description: string, schema: JsonObject) => ({
    name,
    in: 'query',
    required: true,
    description,
    schema,
  });
  const h = (name: string, description: string) => ({ name, in: 'header', required: false, description, schema: str });
  const parameters = [
    seg('run', 'The run id'),
    seg('kind', 'A kind with files', { enum: FILE_KINDS }),
    seg('name', 'The file name (never trusted as a path)'),
    q('expires', 'Unix seconds the URL is good until', { type: 'integer' }),
    q('signature', 'The URL signature', { type: 'string', minLength: 1 }),
    h('Range', 'bytes=start-end (one range)'),
    h('If-Range', 'An ETag: the Range holds only while the file is still that one'),
    h('If-None-Match', 'ETags of copies held: 304 when one is this file'),
  ];
  const fileHeaders = (range: boolean) => ({
    ETag: { description: 'The file sha256, quoted', schema: str },
    'Accept-Ranges': { description: 'bytes', schema: str },
    'Cache-Control': { description: 'private, no-store', schema: str },
    'Content-Disposition': { description: 'attachment, with the file name', schema: str },
    ...(range ? { 'Content-Range': { $ref: '#/components/headers/Content-Range' } } : {}),
  });
  const bytes = { '*/*': { schema: { description: "The file's bytes, of its manifest content_type" } } };
  const op = (operationId: string, summary: string, body: boolean) => ({
    operationId,
    summary,
    description:
      'A signed file URL: the key is in the query (signature, expires), not in Authorization. The service gives these URLs whole in an artifact answer and they are opaque to a client; the layout /files/{run}/{kind}/{name} is the sandbox\u2019s.',
    tags: ['files'],
    security: [],
    parameters,
    responses: {
      '200': { description: 'The file', headers: fileHeaders(false), ...(body ? { content: bytes } : {}) },
      '206': { description: 'The range asked for', headers: fileHeaders(true), ...(body ? { content: bytes } : {}) },
      '304': {
        description: 'If-None-Match named this file: nothing to send',
        headers: { ETag: fileHeaders(false).ETag, 'Cache-Control': fileHeaders(false)['Cache-Control'] },
      },
      ...errors(403, 404, 416),
    },
  });
  return {
    '/files/{run}/{kind}/{name}': {
      get: op('getFile', 'A file of an artifact, by its signed URL', true),
      head: op('headFile', 'The head of a file of an artifact, by its signed URL', false),
    },
  };
}

// oxlint-disable-next-line max-lines-per-function -- a data table: the admin API's routes
export function sandboxPaths(errors: Errors): JsonObject {
  const own = 'The sandbox\u2019s own (not the service\u2019s): its admin API, with its test key only. ';
  const op = (operationId: string, summary: string, extra: JsonObject, description = '') => ({
    operationId,
    summary,
    description: own + description,
    ...SANDBOX,
    ...extra,
  });
  const body = (name: string) => ({
    required: true,
    description: NESTING,
    content: { 'application/json': { schema: ref(name) } },
  });
  const ok = (name: string, description: string, status = '200') => ({
    [status]: json(ref(name), description),
    ...errors(400, 401, 404),
  });
  const counts = Object.fromEntries(
    ['Runs', 'Webhooks', 'Deliveries'].map((n) => [`X-Snapshot-${n}`, { description: `${n} in it`, schema: int }]),
  );
  return {
    '/_sandbox/clock': {
      get: op('sandboxClock', 'The virtual clock and the runs it moves', {
        responses: ok('SandboxClock', 'The clock'),
      }),
    },
    '/_sandbox/clock/advance': {
      post: op('sandboxAdvance', 'Move the clock (all runs, or one) and fire what is due', {
        requestBody: body('SandboxAdvanceParams'),
        responses: ok('SandboxAdvanceResult', 'The clock after it'),
      }),
    },
    '/_sandbox/trigger': {
      post: op(
        'sandboxTrigger',
        'Produce an event for real',
        { requestBody: body('SandboxTriggerParams'), responses: ok('SandboxTriggerResult', 'The run and its event') },
        'Without run, on a new fixture run.',
      ),
    },
    '/_sandbox/faults': {
      get: op('sandboxListFaults', 'The injected faults', { responses: ok('SandboxFaultList', 'The faults') }),
      post: op('sandboxAddFault', 'Inject a fault', {
        requestBody: body('SandboxFaultParams'),
        responses: ok('SandboxFault', 'The fault', '201'),
      }),
      delete: op('sandboxClearFaults', 'Remove every fault', {
        responses: ok('SandboxFaultsCleared', 'Cleared'),
      }),
    },
    '/_sandbox/faults/{id}': {
      delete: op('sandboxRemoveFault', 'Remove one fault', {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1 } }],
        responses: ok('SandboxFaultRemoved', 'Removed'),
      }),
    },
    '/_sandbox/reset': {
      post: op(
        'sandboxReset',
        'Empty runs, webhooks, deliveries and faults',
        { responses: ok('SandboxResetDone', 'Emptied') },
        'The key and the knobs are kept.',
      ),
    },
    '/_sandbox/export': {
      get: op('sandboxExport', 'A consistent snapshot of the sandbox', {
        responses: { '200': json(ref('SandboxSnapshot'), 'The snapshot', counts), ...errors(401) },
      }),
    },
    '/_sandbox/logs': {
      get: op(
        'sandboxLogs',
        'The request journal and webhook delivery attempts',
        {
          parameters: ['after', 'limit', 'follow'].map((name) => ({
            name,
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 0 },
          })),
          responses: {
            '200': {
              ...json(ref('SandboxJournalPage'), 'The entries after `after`', {
                // Sent with follow=1 only: the event stream's head.
                'Cache-Control': { ...(STREAM_HEADERS['Cache-Control'] as JsonObject), required: false },
                'X-Accel-Buffering': { ...(STREAM_HEADERS['X-Accel-Buffering'] as JsonObject), required: false },
              }),
              content: {
                'application/json': { schema: ref('SandboxJournalPage') },
                'text/event-stream': {},
              },
            },
            ...errors(400, 401),
          },
        },
        'With follow=1, an event stream of the entries instead.',
      ),
    },
    '/_sandbox/events': {
      get: op(
        'sandboxEvents',
        "Every run's events from now on",
        {
          parameters: [{ name: 'logs', in: 'query', required: false, schema: { type: 'string', enum: ['1'] } }],
          responses: {
            '200': sse('Server-Sent Events, as a run\u2019s stream; sandbox.reset after a reset'),
            ...errors(401),
          },
        },
        'With logs=1, log lines too.',
      ),
    },
    '/_sandbox/console': {
      post: op('sandboxConsoleLink', 'A one-time link to the web console', {
        responses: ok('SandboxConsoleLink', 'The link', '201'),
      }),
    },
    '/_sandbox/stats': {
      get: op('sandboxStats', 'Memory and webhook dispatcher figures', {
        responses: ok('SandboxStats', 'The figures'),
      }),
    },
  };
}
