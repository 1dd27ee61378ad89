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
import type { Answer } from './idempotency.js';
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
export type Handler = (call: Call) => Answer | void;

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
export const json = (status: number, value: unknown): Answer => {
  if (value === null || typeof value !== 'object') return { status, body: JSON.stringify(value) };
  let body = encoded.get(value);
  if (body === undefined) encoded.set(value, (body = JSON.stringify(value)));
  return { status, body };
};

export function apiRoutes({
  service,
  dispatcher,
  artifacts,
  hub,
  clock,
  maxEventStreams,
  origin,
}: RouteParts): Array<Route<Handler>> {
  const parse = <T>(schema: ZodMiniType<T>, body: unknown): T => {
    const parsed = schema.safeParse(body ?? {});
    if (!parsed.success) throw failureFromZod(parsed.error, body ?? {});
    return parsed.data;
  };
  const decide =
    (decision: 'approved' | 'rejected'): Handler =>
    ({ params, body }) => {
      service.getRun(params.run!);
      let notes: string | null = null;
      if (decision === 'rejected') notes = parse(RejectParams, body).notes;
      else if (body !== undefined) notes = parse(ApproveParams, body).notes?.trim() || null;
      return json(200, service.decide(params.run!, params.gate!, decision, notes));
    };

  // Every route the sandbox answers. POSTs go through the idempotency layer; PATCH and POST read a body.
  const routes: Array<Route<Handler>> = [
    { method: 'GET', pattern: '/v1/runs', handler: ({ query }) => json(200, listRuns(query)) },
    {
      method: 'POST',
      pattern: '/v1/runs',
      handler: ({ body }) => json(201, service.createRun(parse(RunCreateParams, body)).run),
    },
    { method: 'GET', pattern: '/v1/runs/{run}', handler: ({ params }) => json(200, service.getRun(params.run!).run) },
    {
      method: 'POST',
      pattern: '/v1/runs/{run}/cancel',
      handler: ({ params }) => json(200, service.cancel(params.run!).run),
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{run}/spec',
      handler: ({ params }) => json(200, service.getRun(params.run!).spec),
    },
    {
      method: 'PATCH',
      pattern: '/v1/runs/{run}/spec',
      handler: ({ req, params, body }) => {
        const rec = service.getRun(params.run!);
        const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/merge-patch+json' && type !== 'application/json')
          throw new Failure('unsupported_media_type', 'send the patch as application/merge-patch+json');
        return json(200, service.patchSpec(rec.run.id, body).spec);
      },
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{run}/gates',
      handler: ({ params }) => json(200, { data: Object.values(service.getRun(params.run!).gates) }),
    },
    { method: 'POST', pattern: '/v1/runs/{run}/gates/{gate}:approve', handler: decide('approved') },
    { method: 'POST', pattern: '/v1/runs/{run}/gates/{gate}:reject', handler: decide('rejected') },
    {
      method: 'GET',
      pattern: '/v1/runs/{run}/scorecard',
      handler: ({ params }) => {
        const rec = service.getRun(params.run!);
        if (!rec.scorecard)
          throw new Failure(
            'scorecard_not_ready',
            `run ${rec.run.id} has not been scored yet (stage ${rec.run.stage})`,
          );
        return json(200, rec.scorecard);
      },
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{run}/artifacts',
      handler: ({ params }) => json(200, { data: artifacts.manifest(service.getRun(params.run!)) }),
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{run}/artifacts/{kind}',
      handler: ({ req, params }) =>
        json(200, artifacts.artifact(service.getRun(params.run!), params.kind!, origin(req), clock.now())),
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{run}/events',
      stream: true,
      handler: ({ req, res, params, query, cutAfter }) => {
        const rec = service.getRun(params.run!);
        if (hub.size >= maxEventStreams)
          throw new Failure(
            'unavailable',
            `${maxEventStreams} event streams are open, the most this sandbox serves; retry shortly`,
            undefined,
            { 'Retry-After': '5' },
          );
        hub.open(
          req,
          res,
          rec,
          (req.headers['last-event-id'] as string | undefined) ?? query.get('last_event_id'),
          cutAfter,
        );
      },
    },
    {
      method: 'GET',
      pattern: '/v1/webhooks',
      handler: ({ query }) => json(200, page(dispatcher.list(), query, webhookView)),
    },
    {
      method: 'POST',
      pattern: '/v1/webhooks',
      handler: ({ body }) => {
        const w = dispatcher.register(body ?? {});
        return json(201, { ...webhookView(w), secret: w.secret });
      },
    },
    {
      method: 'GET',
      pattern: '/v1/webhooks/{webhook}',
      handler: ({ params }) => json(200, webhookView(dispatcher.get(params.webhook!))),
    },
    {
      method: 'DELETE',
      pattern: '/v1/webhooks/{webhook}',
      handler: ({ params }) => {
        const w = dispatcher.get(params.webhook!);
        dispatcher.remove(w.id);
        return json(200, { id: w.id, deleted: true });
      },
    },
    {
      method: 'GET',
      pattern: '/v1/webhooks/{webhook}/deliveries',
      handler: ({ params, query }) =>
        json(200, page(dispatcher.deliveryList(dispatcher.get(params.webhook!).id), query, deliveryView)),
    },
    {
      method: 'POST',
      pattern: '/v1/webhooks/{webhook}/deliveries/{delivery}:redeliver',
      handler: ({ params }) => json(200, deliveryView(dispatcher.redeliver(params.webhook!, params.delivery!))),
    },
  ];

  function listRuns(query: URLSearchParams) {
    const status = query.get('status');
    if (status !== null && !(RUN_STATUSES as readonly string[]).includes(status))
      throw new Failure('invalid_value', `status must be one of ${RUN_STATUSES.join(', ')}`, 'status');
    return page(status === null ? service.allRuns() : service.listRuns(status), query, (rec) => rec.run);
  }

  return routes;
}
