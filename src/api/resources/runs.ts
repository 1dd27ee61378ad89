// Runs: create, retrieve, list (a page or every page), cancel, and the scorecard.
import type * as z from 'zod/mini';
import { Run, Scorecard, pageOf, type RunCreateParams } from '../../contract/schemas.js';
import type { HttpClient } from '../http.js';
import { path } from '../path.js';

let runPage: ReturnType<typeof pageOf<typeof Run>> | undefined;
const RunPage = () => (runPage ??= pageOf(Run));

export interface RunListQuery {
  status?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export class Runs {
  constructor(private readonly http: HttpClient) {}

  /** The run, and whether the service replayed an earlier create with the same Idempotency-Key. */
  async create(params: RunCreateParams, { idempotencyKey }: { idempotencyKey?: string } = {}): Promise<Run & { replayed?: boolean }> {
    let replayed = false;
    const run = await this.http.json({
      method: 'POST',
      target: '/v1/runs',
      body: params,
      schema: Run,
      ...(idempotencyKey ? { idempotencyKey } : {}),
      onAnswer: (a) => {
        replayed = a.header('idempotent-replayed') === 'true';
      },
    });
    return Object.defineProperty(run, 'replayed', { value: replayed, enumerable: false });
  }

  retrieve(id: string): Promise<Run> {
    return this.http.json({ method: 'GET', target: path`/v1/runs/${id}`, schema: Run });
  }

  list(query: RunListQuery = {}): Promise<z.infer<ReturnType<typeof RunPage>>> {
    return this.http.json({ method: 'GET', target: '/v1/runs', query: { ...query }, schema: RunPage() });
  }

  listAll(query: Omit<RunListQuery, 'cursor'> = {}): AsyncGenerator<Run> {
    return this.http.paginate('/v1/runs', Run, { ...query });
  }

  cancel(id: string): Promise<Run> {
    return this.http.json({ method: 'POST', target: path`/v1/runs/${id}/cancel`, schema: Run });
  }

  scorecard(id: string): Promise<Scorecard> {
    return this.http.json({ method: 'GET', target: path`/v1/runs/${id}/scorecard`, schema: Scorecard });
  }
}
