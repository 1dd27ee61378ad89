// Gates: the three of a run, and deciding one.
import type { Gate, GateDecision, GateList } from '../../contract/schemas.js';
import type { HttpClient } from '../http.js';
import { path } from '../path.js';

export class Gates {
  constructor(private readonly http: HttpClient) {}

  async list(runId: string): Promise<Gate[]> {
    return (await this.http.json({ method: 'GET', target: path`/v1/runs/${runId}/gates`, schema: (s) => s.GateList }))
      .data;
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
