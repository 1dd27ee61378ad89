// The service as an OpenAPI document, made from the contract's own zod schemas (src/contract/schemas.ts)
// and tables (errors, event kinds, artifact kinds), so it cannot drift from what orc and the sandbox speak:
// the spec's routes plus CONTRACT.md's (pages, webhooks' deliveries and redelivery, cancel), errors, the
// headers every answer carries, bearer security, webhooks (one per event kind, signed), the event stream,
// the signed files, and the sandbox's own admin API (openapi-sandbox.ts). `orc api --openapi` prints it; the
// build writes it to dist/openapi.json.
// Two dialects of one document: 3.1 (the default) and 3.2 (`orc api --openapi --oas 3.2`, dist/openapi-3.2.json),
// which differ only in the event stream. 3.1 cannot say what each item of a text/event-stream is, so there the
// stream has no schema (a tool that checked the whole stream against one would fail every event); 3.2's
// `itemSchema` describes each message. 3.1 stays the default because the linters (Spectral) and most client
// generators read 3.1 only; a flag of the same command, not a second one, since it is the same document.
import * as z from 'zod/mini';
import { ERROR_CODES, ERROR_TYPES } from './errors.js';
import { ARTIFACT_KINDS, EVENT_KINDS, GATE_NAMES, RUN_STATUSES } from './events.js';
import { FORBIDDEN_KEYS } from './limits.js';
import { filePaths, NESTING, STREAM_HEADERS, sandboxPaths, sandboxSchemas } from './openapi-sandbox.js';
import * as S from './schemas.js';

export const OAS_VERSIONS = ['3.1', '3.2'] as const;
export type OasVersion = (typeof OAS_VERSIONS)[number];

/**
 * The warnings of Spectral (`spectral:oas`) and Redocly (`recommended`) that the document keeps, each for a
 * reason and each where it fires (`at`: every place, as the linter names it; Spectral a dotted path, Redocly a
 * JSON pointer). test/contract/openapi-lint.test.ts compares each linter's findings with these exactly: a
 * warning anywhere else fails it, and so does one of these that no longer fires there (so the table stays true).
 */
export const LINT_JUSTIFIED: ReadonlyArray<{
  tool: 'spectral' | 'redocly';
  rule: string;
  at: readonly string[];
  why: string;
}> = [
  // The service's contact and terms are its own to publish, not orc's to invent.
  { tool: 'spectral', rule: 'info-contact', at: ['info'], why: "the service's contact is not orc's to state" },
  { tool: 'redocly', rule: 'info-license', at: ['#/info'], why: "the service's licence is not orc's to state" },
  // Every operation has a summary; a description is written where there is more to say than the summary: these
  // are the service's operations whose summary says it all.
  {
    tool: 'spectral',
    rule: 'operation-description',
    at: [
      ...['/v1/runs.post', '/v1/runs.get', '/v1/runs/{id}.get', '/v1/runs/{id}/cancel.post'],
      ...['/v1/runs/{id}/spec.get', '/v1/runs/{id}/spec.patch', '/v1/runs/{id}/gates.get'],
      ...['/v1/runs/{id}/gates/{gate}:approve.post', '/v1/runs/{id}/gates/{gate}:reject.post'],
      ...['/v1/runs/{id}/artifacts.get', '/v1/runs/{id}/artifacts/{kind}.get', '/v1/runs/{id}/scorecard.get'],
      ...['/v1/webhooks.post', '/v1/webhooks.get', '/v1/webhooks/{id}.get', '/v1/webhooks/{id}.delete'],
      ...['/v1/webhooks/{id}/deliveries.get', '/v1/webhooks/{id}/deliveries/{delivery_id}:redeliver.post'],
    ].map((op) => `paths.${op}`),
    why: 'a summary on each; a description where it adds',
  },
];

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

/** The answers' schemas, made in one pass so that one named in another is a $ref to it (GateList's items are
 * Gate, GateDecision's run is Run): a client generator makes one type of each, and none goes unused. */
function outputSchemas(): JsonObject {
  const named: Record<string, unknown> = {
    Run: S.Run,
    RunPage: S.pageOf(S.Run),
    Gate: S.Gate,
    GateList: S.GateList,
    GateDecision: S.GateDecision,
    AppSpec: S.AppSpec,
    Scorecard: S.Scorecard,
    ArtifactManifest: S.ArtifactManifest,
    Artifact: S.Artifact,
    Webhook: S.Webhook,
    WebhookWithSecret: S.WebhookWithSecret,
    WebhookPage: S.pageOf(S.Webhook),
    Delivery: S.Delivery,
    DeliveryPage: S.pageOf(S.Delivery),
    Deleted: S.Deleted,
    Event: S.Event,
    ErrorEnvelope: S.ErrorEnvelope,
  };
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema as z.ZodMiniType, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => ref(id).$ref,
  }) as { schemas: Record<string, JsonObject> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

const json = (schema: JsonObject, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** Every error answer: the envelope of CONTRACT.md, "Errors". */
function errors(...statuses: number[]): JsonObject {
  const out: JsonObject = {};
  // Every route is rate-limited, and any may answer 503 (busy, shutting down, too many streams). A method the
  // path does not take is answered 405 with Allow: OpenAPI has no place for an answer to a method not described,
  // so each of the path's operations declares it.
  for (const s of [...new Set([...statuses, 405, 429, 503])].sort()) {
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
const hdr = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers the sandbox sends (server.ts, rate-limit.ts, failure.ts), as CONTRACT.md gives them. */
const HEADERS: JsonObject = {
  'X-Request-Id': {
    description: "This answer's id (req_…): quote it when reporting a problem",
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
  'X-RateLimit-Limit': {
    description: "Requests per second this key may make (on every answer while a limit is on: the service's always is)",
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in this window',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix seconds when the window resets',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying: always on a 429; on a 503 when a wait is known',
    schema: { type: 'integer', minimum: 0 },
  },
  'Idempotent-Replayed': {
    description: 'true: this is the original answer to this Idempotency-Key and body, replayed (no second run)',
    schema: { type: 'string', enum: ['true'] },
  },
  Allow: {
    description: 'The methods this path takes (a 405 answers any other)',
    required: true,
    schema: { type: 'string' },
  },
  'Content-Range': {
    description: 'bytes start-end/size on a 206; bytes */size on a 416 (the range was outside the file)',
    required: true,
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description: 'Bearer (no key sent), or Bearer error="invalid_token"',
    required: true,
    schema: { type: 'string' },
  },
};

/** Every answer of every route gets the headers every answer carries, and the ones its status adds. */
function declareHeaders(paths: JsonObject): void {
  for (const ops of Object.values(paths) as JsonObject[])
    for (const op of Object.values(ops) as Array<{ responses: Record<string, JsonObject> }>)
      for (const [status, response] of Object.entries(op.responses)) {
        const own = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
        if (status === '429' || status === '503') own.push('Retry-After');
        if (status === '401') own.push('WWW-Authenticate');
        if (status === '405') own.push('Allow');
        if (status === '416') own.push('Content-Range');
        const headers = (response.headers ?? {}) as JsonObject;
        response.headers = { ...Object.fromEntries(own.map((n) => [n, hdr(n)])), ...headers };
      }
}

const FORBIDDEN = { not: { enum: [...FORBIDDEN_KEYS] } };

/** A request body's schema, saying what the sandbox refuses that zod's JSON Schema leaves out: the keys
 * `__proto__`, `constructor` and `prototype`, at any depth (limits.ts), and `items: false` after a tuple
 * (valid 2020-12, but Spectral reads it as an error; maxItems says the same). */
function forInput(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forInput);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, forInput(v)]));
  if (out.items === false && Array.isArray(out.prefixItems)) {
    out.items = out.prefixItems.length === 1 ? out.prefixItems[0] : { anyOf: out.prefixItems };
    out.maxItems = out.prefixItems.length;
  }
  if (out.type === 'object' && out.additionalProperties !== false) {
    out.propertyNames = FORBIDDEN;
    out.additionalProperties = ref('SafeJson');
  }
  return out;
}

/** RunCreateParams with its rule (schemas.ts' superRefine): idea mode takes idea, ship mode takes source,
 * never both; JSON Schema cannot be made from a refinement, so it is said here beside it. */
function runCreateParams(): JsonObject {
  const mode = (m: string, takes: string, not: string) => ({
    title: `${m} mode`,
    properties: { mode: { const: m }, [not]: false },
    required: ['mode', takes],
  });
  return {
    ...(forInput(jsonSchema(S.RunCreateParams, 'input')) as JsonObject),
    oneOf: [mode('idea', 'idea', 'source'), mode('ship', 'source', 'idea')],
  };
}

/** The event stream's answer: 3.2 describes each message; 3.1 cannot (see the header comment). */
function eventStream(oas: OasVersion): JsonObject {
  if (oas === '3.1') return { 'text/event-stream': {} };
  const message = {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'A per-run integer sequence' },
      event: { type: 'string', description: 'The event type, or log' },
      data: { type: 'string', contentMediaType: 'application/json', contentSchema: ref('Event') },
      retry: { type: 'integer' },
    },
  };
  return { 'text/event-stream': { itemSchema: message } };
}

const body = (schema: JsonObject, contentType = 'application/json', required = true) => ({
  required,
  description: NESTING,
  content: { [contentType]: { schema } },
});

// oxlint-disable-next-line max-lines-per-function -- a data table: the OpenAPI document literal
export function openApiDocument(version: string, oas: OasVersion = '3.1'): JsonObject {
  const schemas: JsonObject = {
    ...outputSchemas(),
    RunCreateParams: runCreateParams(),
    AppSpecPatch: {
      type: 'object',
      description: 'A JSON Merge Patch (RFC 7396) of the App Spec: null removes a key, arrays replace',
      propertyNames: FORBIDDEN,
      additionalProperties: ref('SafeJson'),
    },
    SafeJson: {
      description: 'Any JSON value in which no object has the key __proto__, constructor or prototype (400)',
      propertyNames: FORBIDDEN,
      additionalProperties: ref('SafeJson'),
      items: ref('SafeJson'),
    },
    ApproveParams: forInput(jsonSchema(S.ApproveParams, 'input')),
    RejectParams: forInput(jsonSchema(S.RejectParams, 'input')),
    WebhookCreateParams: forInput(jsonSchema(S.WebhookCreateParams, 'input')),
    ...sandboxSchemas(),
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
            description: 'One per logical create, reused on every retry (kept 24 h); HTTP trims it, so not blank',
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
          },
        ],
        requestBody: body(ref('RunCreateParams')),
        responses: {
          '201': {
            ...json(
              ref('Run'),
              'The run; or, for a key and body already seen, the original answer replayed with Idempotent-Replayed: true',
            ),
            headers: { 'Idempotent-Replayed': hdr('Idempotent-Replayed') },
          },
          ...errors(400, 401, 409, 422),
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
          description: NESTING,
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
        parameters: [runId, { ...id('kind', 'Which artifact'), schema: { type: 'string', enum: [...ARTIFACT_KINDS] } }],
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
            headers: STREAM_HEADERS,
            content: eventStream(oas),
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
  for (const [path, ops] of Object.entries(paths) as Array<[string, Record<string, JsonObject>]>)
    for (const o of Object.values(ops)) o.tags = [path.startsWith('/v1/webhooks') ? 'webhooks' : 'runs'];
  Object.assign(paths, filePaths(errors), sandboxPaths(errors));
  declareHeaders(paths);
  const webhooks: JsonObject = {};
  for (const kind of EVENT_KINDS)
    webhooks[kind] = {
      post: {
        summary: `${kind}, delivered to a registered webhook`,
        operationId: `deliver_${kind.replace('.', '_')}`,
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
        requestBody: { required: true, content: { 'application/json': { schema: ref('Event') } } },
        responses: {
          '200': {
            description:
              'Any 2xx within 10 s counts as delivered; anything else is retried with backoff, 8 attempts in all',
          },
        },
      },
    };
  return {
    openapi: `${oas}.0`,
    info: {
      title: 'Run Orchestration Service',
      version: `v1 (described by orc ${version})`,
      description:
        "The service's preview spec and orc's CONTRACT.md, made from the contract's schemas. Unknown fields are to be kept and ignored, unknown enum values shown as they come (a tolerant reader).",
    },
    servers: [{ url: 'http://127.0.0.1:4010', description: 'orc sandbox (the local emulator)' }],
    security,
    tags: [
      { name: 'runs', description: 'Runs, their gates, App Spec, artifacts, scorecard and events' },
      { name: 'webhooks', description: 'Webhooks and their deliveries' },
      { name: 'files', description: 'Signed file URLs of artifacts (no key: the URL carries its signature)' },
      { name: 'sandbox', description: "The sandbox's own admin API (orc sandbox): not part of the service" },
    ],
    paths,
    webhooks,
    components: {
      schemas,
      headers: HEADERS,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'sk_test_… (sandbox) or sk_live_…' } },
    },
  };
}
