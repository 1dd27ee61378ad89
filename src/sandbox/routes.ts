// Every route of the service the sandbox answers, as data: method, pattern, handler. A handler answers JSON
// (status and body) or, for a stream, writes the answer itself. POSTs reach it through the idempotency
// layer and PATCH and POST with their body read (server.ts); it only turns a call into the service's answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodMiniType } from 'zod/mini';
import type { Clock } from '../lib/clock.js';
import { RUN_STATUSES } from '../contract/events.js';
import { ApproveParams, RejectParams, RunCreateParams } from '../contract/schemas.js';
import type { Artifacts } from './artifacts.js';
import { Failure, failureFromZod } from './failure.js';
import type { Reply } from './idempotency.js';
import { page } from './page.js';
import type { Route } from './router.js';
import type { SandboxService } from './service.js';
import type { SseHub } from './sse-hub.js';
import { deliveryView, webhookView, type WebhookDispatcher } from './webhooks.js';

/** What a route handler gets: the request, its path parameters, its query and (read on demand) its body. */
export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** An injected fault cuts this event stream after so many events. */
  cutAfter?: number;
}

/** A route answers JSON ([status, body]) or writes the answer itself (a stream) and answers nothing. */
export type Handler = (call: Call) => Reply | void;

/** What the routes work with. */
export interface RouteParts {
  service: SandboxService;
  dispatcher: WebhookDispatcher;
  artifacts: Artifacts;
  hub: SseHub;
  clock: Clock;
  maxEventStreams: number;
  /** The address a client reached the sandbox at, for the signed URLs it is given. */
  origin(req: IncomingMessage): string;
}

/** Committed records are never changed in place (a change swaps in a new copy), so the JSON of one is
 * made once and kept for as long as that object lives. */
const encoded = new WeakMap<object, string>();
export const json = (status: number, value: unknown): Reply => {
  if (value === null || typeof value !== 'object') return { status, body: JSON.stringify(value) };
  let body = encoded.get(value);
  if (body === undefined) encoded.set(value, (body = JSON.stringify(value)));
  return { status, body };
};

export function apiRoutes(parts: RouteParts): Array<Route<Handler>> {
  const h = new ApiHandlers(parts);
  // Every route the sandbox answers. POSTs go through the idempotency layer; PATCH and POST read a body.
  return [
    { method: 'GET', pattern: '/v1/runs', handler: h.listRuns },
    { method: 'POST', pattern: '/v1/runs', handler: h.createRun },
    { method: 'GET', pattern: '/v1/runs/{run}', handler: h.getRun },
    { method: 'POST', pattern: '/v1/runs/{run}/cancel', handler: h.cancel },
    { method: 'GET', pattern: '/v1/runs/{run}/spec', handler: h.getSpec },
    { method: 'PATCH', pattern: '/v1/runs/{run}/spec', handler: h.patchSpec },
    { method: 'GET', pattern: '/v1/runs/{run}/gates', handler: h.listGates },
    { method: 'POST', pattern: '/v1/runs/{run}/gates/{gate}:approve', handler: h.decide('approved') },
    { method: 'POST', pattern: '/v1/runs/{run}/gates/{gate}:reject', handler: h.decide('rejected') },
    { method: 'GET', pattern: '/v1/runs/{run}/scorecard', handler: h.scorecard },
    { method: 'GET', pattern: '/v1/runs/{run}/artifacts', handler: h.manifest },
    { method: 'GET', pattern: '/v1/runs/{run}/artifacts/{kind}', handler: h.artifact },
    { method: 'GET', pattern: '/v1/runs/{run}/events', stream: true, handler: h.events },
    { method: 'GET', pattern: '/v1/webhooks', handler: h.listWebhooks },
    { method: 'POST', pattern: '/v1/webhooks', handler: h.createWebhook },
    { method: 'GET', pattern: '/v1/webhooks/{webhook}', handler: h.getWebhook },
    { method: 'DELETE', pattern: '/v1/webhooks/{webhook}', handler: h.deleteWebhook },
    { method: 'GET', pattern: '/v1/webhooks/{webhook}/deliveries', handler: h.listDeliveries },
    { method: 'POST', pattern: '/v1/webhooks/{webhook}/deliveries/{delivery}:redeliver', handler: h.redeliver },
  ];
}

const parse = <T>(schema: ZodMiniType<T>, body: unknown): T => {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw failureFromZod(parsed.error, body ?? {});
  return parsed.data;
};

/** The API's handlers, one per route, over the parts they work with. */
class ApiHandlers {
  constructor(private readonly parts: RouteParts) {}

  listRuns: Handler = ({ query }) => {
    const { service } = this.parts;
    const status = query.get('status');
    if (status !== null && !(RUN_STATUSES as readonly string[]).includes(status))
      throw new Failure('invalid_value', `status must be one of ${RUN_STATUSES.join(', ')}`, 'status');
    return json(
      200,
      page(status === null ? service.allRuns() : service.listRuns(status), query, (rec) => rec.run),
    );
  };

  createRun: Handler = ({ body }) => json(201, this.parts.service.createRun(parse(RunCreateParams, body)).run);

  getRun: Handler = ({ params }) => json(200, this.parts.service.getRun(params.run!).run);

  cancel: Handler = ({ params }) => json(200, this.parts.service.cancel(params.run!).run);

  getSpec: Handler = ({ params }) => json(200, this.parts.service.getRun(params.run!).spec);

  patchSpec: Handler = ({ req, params, body }) => {
    const rec = this.parts.service.getRun(params.run!);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/merge-patch+json' && type !== 'application/json')
      throw new Failure('unsupported_media_type', 'send the patch as application/merge-patch+json');
    return json(200, this.parts.service.patchSpec(rec.run.id, body).spec);
  };

  listGates: Handler = ({ params }) => json(200, { data: Object.values(this.parts.service.getRun(params.run!).gates) });

  decide =
    (decision: 'approved' | 'rejected'): Handler =>
    ({ params, body }) => {
      const { service } = this.parts;
      service.getRun(params.run!);
      let notes: string | null = null;
      if (decision === 'rejected') notes = parse(RejectParams, body).notes;
      else if (body !== undefined) notes = parse(ApproveParams, body).notes?.trim() || null;
      return json(200, service.decide(params.run!, params.gate!, decision, notes));
    };

  scorecard: Handler = ({ params }) => {
    const rec = this.parts.service.getRun(params.run!);
    if (!rec.scorecard)
      throw new Failure('scorecard_not_ready', `run ${rec.run.id} has not been scored yet (stage ${rec.run.stage})`);
    return json(200, rec.scorecard);
  };

  manifest: Handler = ({ params }) =>
    json(200, { data: this.parts.artifacts.manifest(this.parts.service.getRun(params.run!)) });

  artifact: Handler = ({ req, params }) => {
    const { service, artifacts, origin, clock } = this.parts;
    return json(200, artifacts.artifact(service.getRun(params.run!), params.kind!, origin(req), clock.now()));
  };

  events: Handler = ({ req, res, params, query, cutAfter }) => {
    const { service, hub, maxEventStreams } = this.parts;
    const rec = service.getRun(params.run!);
    if (hub.size >= maxEventStreams)
      throw new Failure(
        'unavailable',
        `${maxEventStreams} event streams are open, the most this sandbox serves; retry shortly`,
        undefined,
        { 'Retry-After': '5' },
      );
    const lastEventId = (req.headers['last-event-id'] as string | undefined) ?? query.get('last_event_id');
    hub.open(req, res, rec, lastEventId, cutAfter);
  };

  listWebhooks: Handler = ({ query }) => json(200, page(this.parts.dispatcher.list(), query, webhookView));

  createWebhook: Handler = ({ body }) => {
    const w = this.parts.dispatcher.register(body ?? {});
    return json(201, { ...webhookView(w), secret: w.secret });
  };

  getWebhook: Handler = ({ params }) => json(200, webhookView(this.parts.dispatcher.get(params.webhook!)));

  deleteWebhook: Handler = ({ params }) => {
    const { dispatcher } = this.parts;
    const w = dispatcher.get(params.webhook!);
    dispatcher.remove(w.id);
    return json(200, { id: w.id, deleted: true });
  };

  listDeliveries: Handler = ({ params, query }) => {
    const { dispatcher } = this.parts;
    return json(200, page(dispatcher.deliveryList(dispatcher.get(params.webhook!).id), query, deliveryView));
  };

  redeliver: Handler = ({ params }) =>
    json(200, deliveryView(this.parts.dispatcher.redeliver(params.webhook!, params.delivery!)));
}
