// Runs: create, retrieve, list (a page or every page), cancel, and the scorecard.
import type * as z from 'zod/mini';
import { Run, Scorecard, pageOf, type RunCreateParams } from '../../contract/schemas.js';
import type { ApiClient } from '../client.js';

const enc = encodeURIComponent;
const RunPage = pageOf(Run);

export interface RunListQuery {
  status?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export class Runs {
  constructor(private readonly client: ApiClient) {}

  create(params: RunCreateParams, { idempotencyKey }: { idempotencyKey?: string } = {}): Promise<Run> {
    return this.client.request({ method: 'POST', path: '/v1/runs', body: params, schema: Run, ...(idempotencyKey ? { idempotencyKey } : {}) });
  }

  retrieve(id: string): Promise<Run> {
    return this.client.request({ method: 'GET', path: `/v1/runs/${enc(id)}`, schema: Run });
  }

  list(query: RunListQuery = {}): Promise<z.infer<typeof RunPage>> {
    return this.client.request({ method: 'GET', path: '/v1/runs', query: { ...query }, schema: RunPage });
  }

  listAll(query: Omit<RunListQuery, 'cursor'> = {}): AsyncGenerator<Run> {
    return this.client.paginate('/v1/runs', Run, { ...query });
  }

  cancel(id: string): Promise<Run> {
    return this.client.request({ method: 'POST', path: `/v1/runs/${enc(id)}/cancel`, schema: Run });
  }

  scorecard(id: string): Promise<Scorecard> {
    return this.client.request({ method: 'GET', path: `/v1/runs/${enc(id)}/scorecard`, schema: Scorecard });
  }
}
