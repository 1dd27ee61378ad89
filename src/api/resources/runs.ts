// Runs: create, retrieve, list (a page or every page), cancel, and the scorecard.
// Their schemas are named, not imported (http.ts loads them when needed), and a run or a page of runs is
// checked by hand (contract/shapes.ts): `orc run get` and `orc watch` load no zod.
import type { Page, Run, RunCreateParams, Scorecard } from '../../contract/schemas.js';
import { isPageOf, isRun } from '../../contract/shapes.js';
import type { HttpClient } from '../http.js';
import { path } from '../path.js';

const isRunPage = isPageOf(isRun);

export interface RunListQuery {
  status?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export class Runs {
  constructor(private readonly http: HttpClient) {}

  /** The run, and whether the service replayed an earlier create with the same Idempotency-Key. */
  async create(
    params: RunCreateParams,
    { idempotencyKey }: { idempotencyKey?: string } = {},
  ): Promise<Run & { replayed?: boolean }> {
    let replayed = false;
    const run = await this.http.json({
      method: 'POST',
      target: '/v1/runs',
      body: params,
      schema: (s) => s.Run,
      quick: isRun,
      ...(idempotencyKey ? { idempotencyKey } : {}),
      onAnswer: (a) => {
        replayed = a.header('idempotent-replayed') === 'true';
      },
    });
    return Object.defineProperty(run, 'replayed', { value: replayed, enumerable: false });
  }

  retrieve(id: string): Promise<Run> {
    return this.http.json({ method: 'GET', target: path`/v1/runs/${id}`, schema: (s) => s.Run, quick: isRun });
  }

  list(query: RunListQuery = {}): Promise<Page<Run>> {
    return this.http.json({
      method: 'GET',
      target: '/v1/runs',
      query: { ...query },
      schema: (s) => s.pageOf(s.Run) as never,
      quick: isRunPage,
    });
  }

  listAll(query: Omit<RunListQuery, 'cursor'> = {}): AsyncGenerator<Run> {
    return this.http.paginate('/v1/runs', (s) => s.Run, { ...query }, isRun);
  }

  cancel(id: string): Promise<Run> {
    return this.http.json({ method: 'POST', target: path`/v1/runs/${id}/cancel`, schema: (s) => s.Run, quick: isRun });
  }

  scorecard(id: string): Promise<Scorecard> {
    return this.http.json({ method: 'GET', target: path`/v1/runs/${id}/scorecard`, schema: (s) => s.Scorecard });
  }
}
