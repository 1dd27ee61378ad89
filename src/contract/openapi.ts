// The service as an OpenAPI 3.1 document, made from the contract's own zod schemas (src/contract/schemas.ts)
// and tables (errors, event kinds), so it cannot drift from what orc and the sandbox speak: the spec's
// routes plus CONTRACT.md's (pages, webhooks' deliveries and redelivery, cancel), errors, bearer security,
// webhooks (one per event kind, signed), and the event stream. `orc api --openapi` prints it; the build
// writes it to dist/openapi.json.
import * as z from 'zod/mini';
import { ERROR_CODES, ERROR_TYPES } from './errors.js';
import { EVENT_KINDS, GATE_NAMES, RUN_STATUSES } from './events.js';
import * as S from './schemas.js';

type JsonObject = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A schema of the contract as JSON Schema (2020-12, what OpenAPI 3.1 uses), its own `$schema` left out. */
function jsonSchema(schema: unknown, io: 'input' | 'output'): JsonObject {
  const out = z.toJSONSchema(schema as z.ZodMiniType, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonObject;
  delete out.$schema;
  return out;
}

const json = (schema: JsonObject, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** Every error answer: the envelope of CONTRACT.md, "Errors". */
function errors(...statuses: number[]): JsonObject {
  const out: JsonObject = {};
  for (const s of statuses) {
    const codes = Object.entries(ERROR_CODES)
      .filter(([, c]) => c.status === s)
      .map(([code]) => code);
    out[String(s)] = json(
      ref('ErrorEnvelope'),
      `${Object.entries(ERROR_TYPES).find(([, st]) => st === s)?.[0] ?? 'error'}: ${codes.join(', ')}`,
    );
  }
  out.default = json(ref('ErrorEnvelope'), 'Any other error, in the same envelope');
  return out;
}

const id = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', minLength: 1 },
});
const runId = id('id', 'The run id (run_…)');
const cursor = {
  name: 'cursor',
  in: 'query',
  required: false,
  description: 'Opaque: the next_cursor of the page before',
  schema: { type: 'string' },
};
const limit = {
  name: 'limit',
  in: 'query',
  required: false,
  description: 'Page size, 1 to 100 (default 20)',
  schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
};
const body = (schema: JsonObject, contentType = 'application/json', required = true) => ({
  required,
  content: { [contentType]: { schema } },
});

// oxlint-disable-next-line max-lines-per-function -- a data table: the OpenAPI document literal
export function openApiDocument(version: string): JsonObject {
  const schemas: JsonObject = {
    Run: jsonSchema(S.Run, 'output'),
    RunPage: jsonSchema(S.pageOf(S.Run), 'output'),
    Gate: jsonSchema(S.Gate, 'output'),
    GateList: jsonSchema(S.GateList, 'output'),
    GateDecision: jsonSchema(S.GateDecision, 'output'),
    AppSpec: jsonSchema(S.AppSpec, 'output'),
    Scorecard: jsonSchema(S.Scorecard, 'output'),
    ArtifactManifest: jsonSchema(S.ArtifactManifest, 'output'),
    Artifact: jsonSchema(S.Artifact, 'output'),
    Webhook: jsonSchema(S.Webhook, 'output'),
    WebhookWithSecret: jsonSchema(S.WebhookWithSecret, 'output'),
    WebhookPage: jsonSchema(S.pageOf(S.Webhook), 'output'),
    Delivery: jsonSchema(S.Delivery, 'output'),
    DeliveryPage: jsonSchema(S.pageOf(S.Delivery), 'output'),
    Deleted: jsonSchema(S.Deleted, 'output'),
    Event: jsonSchema(S.Event, 'output'),
    ErrorEnvelope: jsonSchema(S.ErrorEnvelope, 'output'),
    RunCreateParams: jsonSchema(S.RunCreateParams, 'input'),
    AppSpecPatch: {
      type: 'object',
      description: 'A JSON Merge Patch (RFC 7396) of the App Spec: null removes a key, arrays replace',
      additionalProperties: true,
    },
    ApproveParams: jsonSchema(S.ApproveParams, 'input'),
    RejectParams: jsonSchema(S.RejectParams, 'input'),
    WebhookCreateParams: jsonSchema(S.WebhookCreateParams, 'input'),
  };
  const security = [{ bearer: [] }];
  const op = (summary: string, extra: JsonObject) => ({ summary, security, ...extra });
  const paths: JsonObject = {
    '/v1/runs': {
      post: op('Create a run', {
        operationId: 'createRun',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'One per logical create, reused on every retry (kept 24 h)',
            schema: { type: 'string' },
          },
        ],
        requestBody: body(ref('RunCreateParams')),
        responses: {
          '201': json(ref('Run'), 'The run'),
          '200': json(ref('Run'), 'A replay of the same key and body (Idempotent-Replayed: true)'),
          ...errors(400, 401, 409, 422, 429),
        },
      }),
      get: op('List runs, newest first', {
        operationId: 'listRuns',
        parameters: [
          { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: [...RUN_STATUSES] } },
          cursor,
          limit,
        ],
        responses: { '200': json(ref('RunPage'), 'A page of runs'), ...errors(400, 401, 429) },
      }),
    },
    '/v1/runs/{id}': {
      get: op('Read a run', {
        operationId: 'getRun',
        parameters: [runId],
        responses: { '200': json(ref('Run'), 'The run'), ...errors(401, 404) },
      }),
    },
    '/v1/runs/{id}/cancel': {
      post: op('Cancel a run', {
        operationId: 'cancelRun',
        parameters: [runId],
        responses: { '200': json(ref('Run'), 'The run, canceled'), ...errors(401, 404, 409) },
      }),
    },
    '/v1/runs/{id}/spec': {
      get: op('Read the App Spec', {
        operationId: 'getSpec',
        parameters: [runId],
        responses: { '200': json(ref('AppSpec'), 'The App Spec'), ...errors(401, 404) },
      }),
      patch: op('Change the App Spec (JSON Merge Patch)', {
        operationId: 'updateSpec',
        parameters: [runId],
        requestBody: {
          required: true,
          content: {
            'application/merge-patch+json': { schema: ref('AppSpecPatch') },
            'application/json': { schema: ref('AppSpecPatch') },
          },
        },
        responses: { '200': json(ref('AppSpec'), 'The whole new App Spec'), ...errors(400, 401, 404, 409) },
      }),
    },
    '/v1/runs/{id}/gates': {
      get: op('The three gates', {
        operationId: 'listGates',
        parameters: [runId],
        responses: { '200': json(ref('GateList'), 'idea, brand, final'), ...errors(401, 404) },
      }),
    },
    '/v1/runs/{id}/gates/{gate}:approve': {
      post: op('Approve a pending gate', {
        operationId: 'approveGate',
        parameters: [runId, { ...id('gate', 'The gate'), schema: { type: 'string', enum: [...GATE_NAMES] } }],
        requestBody: body(ref('ApproveParams'), 'application/json', false),
        responses: {
          '200': json(ref('GateDecision'), 'The gate as decided, and the run'),
          ...errors(400, 401, 404, 409),
        },
      }),
    },
    '/v1/runs/{id}/gates/{gate}:reject': {
      post: op('Reject a pending gate, with notes', {
        operationId: 'rejectGate',
        parameters: [runId, { ...id('gate', 'The gate'), schema: { type: 'string', enum: [...GATE_NAMES] } }],
        requestBody: body(ref('RejectParams')),
        responses: {
          '200': json(ref('GateDecision'), 'The gate as decided, and the run'),
          ...errors(400, 401, 404, 409),
        },
      }),
    },
    '/v1/runs/{id}/artifacts': {
      get: op('The artifact manifest', {
        operationId: 'listArtifacts',
        parameters: [runId],
        responses: { '200': json(ref('ArtifactManifest'), 'One entry per kind'), ...errors(401, 404) },
      }),
    },
    '/v1/runs/{id}/artifacts/{kind}': {
      get: op('One artifact: inline JSON, or files behind short-lived signed URLs', {
        operationId: 'getArtifact',
        parameters: [runId, id('kind', 'screenshots, ipa, metadata, scorecard, preflight or spec')],
        responses: { '200': json(ref('Artifact'), 'The artifact'), ...errors(400, 401, 404, 409) },
      }),
    },
    '/v1/runs/{id}/scorecard': {
      get: op('The scorecard', {
        operationId: 'getScorecard',
        parameters: [runId],
        responses: { '200': json(ref('Scorecard'), 'Scores and pre-flight'), ...errors(401, 404) },
      }),
    },
    '/v1/runs/{id}/events': {
      get: op('The event stream (Server-Sent Events)', {
        operationId: 'streamEvents',
        description: `Replays the run's history (or after Last-Event-ID), then each event as it happens; closes after the terminal event. Each message: id (a per-run integer), event (an event type, or log), data (an Event, one line of JSON). retry: 2000 first; a keep-alive comment every 15 s. A Last-Event-ID that is the terminal event of an ended run is answered 204: the stream is over.`,
        parameters: [runId, { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'text/event-stream; each data line is an Event',
            content: { 'text/event-stream': { schema: { type: 'string' }, 'x-item-schema': ref('Event') } },
          },
          '204': { description: 'The run has ended and Last-Event-ID is its terminal event: nothing more to send' },
          ...errors(401, 404),
        },
      }),
    },
    '/v1/webhooks': {
      post: op('Register a webhook', {
        operationId: 'createWebhook',
        requestBody: body(ref('WebhookCreateParams')),
        responses: {
          '201': json(ref('WebhookWithSecret'), 'The webhook, with its secret (shown only here)'),
          ...errors(400, 401),
        },
      }),
      get: op('List webhooks', {
        operationId: 'listWebhooks',
        parameters: [cursor, limit],
        responses: { '200': json(ref('WebhookPage'), 'A page of webhooks'), ...errors(400, 401) },
      }),
    },
    '/v1/webhooks/{id}': {
      get: op('Read a webhook', {
        operationId: 'getWebhook',
        parameters: [id('id', 'The webhook id (wh_…)')],
        responses: { '200': json(ref('Webhook'), 'The webhook (never its secret)'), ...errors(401, 404) },
      }),
      delete: op('Remove a webhook', {
        operationId: 'deleteWebhook',
        parameters: [id('id', 'The webhook id (wh_…)')],
        responses: { '200': json(ref('Deleted'), 'Removed'), ...errors(401, 404) },
      }),
    },
    '/v1/webhooks/{id}/deliveries': {
      get: op("A webhook's deliveries", {
        operationId: 'listDeliveries',
        parameters: [id('id', 'The webhook id (wh_…)'), cursor, limit],
        responses: { '200': json(ref('DeliveryPage'), 'A page of deliveries'), ...errors(400, 401, 404) },
      }),
    },
    '/v1/webhooks/{id}/deliveries/{delivery_id}:redeliver': {
      post: op('Queue a delivery again', {
        operationId: 'redeliver',
        parameters: [id('id', 'The webhook id (wh_…)'), id('delivery_id', 'The delivery id (dlv_…)')],
        responses: { '200': json(ref('Delivery'), 'The delivery, queued again'), ...errors(401, 404) },
      }),
    },
  };
  const webhooks: JsonObject = {};
  for (const kind of EVENT_KINDS)
    webhooks[kind] = {
      post: {
        summary: `${kind}, delivered to a registered webhook`,
        parameters: [
          { name: 'X-Service-Delivery-Id', in: 'header', required: true, schema: { type: 'string' } },
          {
            name: 'X-Service-Signature',
            in: 'header',
            required: true,
            description:
              't=<unix seconds>,v1=<hex HMAC-SHA256 with the secret over "<t>.<raw body>">; several v1= during a rotation',
            schema: { type: 'string' },
          },
        ],
        requestBody: body(ref('Event')),
        responses: {
          '200': {
            description:
              'Any 2xx within 10 s counts as delivered; anything else is retried with backoff, 8 attempts in all',
          },
        },
      },
    };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Run Orchestration Service',
      version: `v1 (described by orc ${version})`,
      description:
        "The service's preview spec and orc's CONTRACT.md, made from the contract's schemas. Unknown fields are to be kept and ignored, unknown enum values shown as they come (a tolerant reader).",
    },
    servers: [{ url: 'http://127.0.0.1:4010', description: 'orc sandbox (the local emulator)' }],
    security,
    paths,
    webhooks,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'sk_test_… (sandbox) or sk_live_…' } },
    },
  };
}
