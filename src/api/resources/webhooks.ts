// Webhooks: register, read, list, delete, and their deliveries.
import type { Deleted, Delivery, Webhook, WebhookWithSecret, WebhookCreateParams } from '../../contract/schemas.js';
import type { HttpClient } from '../http.js';
import { path } from '../path.js';

export class Webhooks {
  constructor(private readonly http: HttpClient) {}

  create(params: WebhookCreateParams) {
    return this.http.json({ method: 'POST', target: '/v1/webhooks', body: params, schema: (s) => s.WebhookWithSecret });
  }

  /** `retries`: attempts after the first (the client's default when absent); a caller that checks again
   * on its own schedule (the listener's keeper) asks for 0. */
  retrieve(id: string, { retries }: { retries?: number } = {}) {
    return this.http.json({
      method: 'GET',
      target: path`/v1/webhooks/${id}`,
      schema: (s) => s.Webhook,
      ...(retries !== undefined ? { retries } : {}),
    });
  }

  list(query: { limit?: number; cursor?: string } = {}) {
    return this.http.json({ method: 'GET', target: '/v1/webhooks', query, schema: (s) => s.pageOf(s.Webhook) });
  }

  listAll() {
    return this.http.paginate('/v1/webhooks', (s) => s.Webhook);
  }

  remove(id: string) {
    return this.http.json({ method: 'DELETE', target: path`/v1/webhooks/${id}`, schema: (s) => s.Deleted });
  }

  deliveries(id: string) {
    return this.http.paginate(path`/v1/webhooks/${id}/deliveries`, (s) => s.Delivery);
  }

  redeliver(id: string, deliveryId: string) {
    return this.http.json({
      method: 'POST',
      target: path`/v1/webhooks/${id}/deliveries/${deliveryId}` + ':redeliver',
      schema: (s) => s.Delivery,
    });
  }
}
