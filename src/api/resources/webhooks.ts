// Webhooks: register, read, list, delete, and their deliveries.
import { Deleted, Delivery, Webhook, WebhookWithSecret, pageOf, type WebhookCreateParams } from '../../contract/schemas.js';
import type { ApiClient } from '../client.js';

const enc = encodeURIComponent;

export class Webhooks {
  constructor(private readonly client: ApiClient) {}

  create(params: WebhookCreateParams) {
    return this.client.request({ method: 'POST', path: '/v1/webhooks', body: params, schema: WebhookWithSecret });
  }

  retrieve(id: string) {
    return this.client.request({ method: 'GET', path: `/v1/webhooks/${enc(id)}`, schema: Webhook });
  }

  list(query: { limit?: number; cursor?: string } = {}) {
    return this.client.request({ method: 'GET', path: '/v1/webhooks', query, schema: pageOf(Webhook) });
  }

  listAll() {
    return this.client.paginate('/v1/webhooks', Webhook);
  }

  remove(id: string) {
    return this.client.request({ method: 'DELETE', path: `/v1/webhooks/${enc(id)}`, schema: Deleted });
  }

  deliveries(id: string) {
    return this.client.paginate(`/v1/webhooks/${enc(id)}/deliveries`, Delivery);
  }

  redeliver(id: string, deliveryId: string) {
    return this.client.request({ method: 'POST', path: `/v1/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}:redeliver`, schema: Delivery });
  }
}
