// Gates: the three of a run, and deciding one.
import type { Gate, GateDecision, GateList } from '../../contract/schemas.js';
import { ConflictError } from '../errors.js';
import type { HttpClient } from '../http.js';
import { path } from '../path.js';

export class Gates {
  constructor(private readonly http: HttpClient) {}

  async list(runId: string): Promise<Gate[]> {
    return (await this.http.json({ method: 'GET', target: path`/v1/runs/${runId}/gates`, schema: (s) => s.GateList }))
      .data;
  }

  /** Refuses, as the service would a decision (409 gate_not_pending), unless the gate waits for one: asked before
   * a change that goes with the decision (`gate approve --set`, MCP's spec_patch), so that nothing is changed
   * for a decision that cannot be made. */
  async ensurePending(runId: string, gate: string): Promise<void> {
    const state = (await this.list(runId)).find((g) => g.name === gate)?.state;
    if (state === 'pending') return;
    throw new ConflictError({
      status: 409,
      type: 'conflict_error',
      code: 'gate_not_pending',
      message: `gate ${gate} of ${runId} is ${state ?? 'not there'}, not pending; nothing was changed`,
      requestId: null,
    });
  }

  approve(runId: string, gate: string, notes?: string) {
    return this.http.json({
      method: 'POST',
      target: path`/v1/runs/${runId}/gates/${gate}` + ':approve',
      schema: (s) => s.GateDecision,
      ...(notes ? { body: { notes } } : {}),
    });
  }

  reject(runId: string, gate: string, notes: string) {
    return this.http.json({
      method: 'POST',
      target: path`/v1/runs/${runId}/gates/${gate}` + ':reject',
      body: { notes },
      schema: (s) => s.GateDecision,
    });
  }
}
