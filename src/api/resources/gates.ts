// Gates: the three of a run, and deciding one.
import { Gate, GateDecision, GateList } from '../../contract/schemas.js';
import type { ApiClient } from '../client.js';

const enc = encodeURIComponent;

export class Gates {
  constructor(private readonly client: ApiClient) {}

  async list(runId: string): Promise<Gate[]> {
    return (await this.client.request({ method: 'GET', path: `/v1/runs/${enc(runId)}/gates`, schema: GateList })).data;
  }

  approve(runId: string, gate: string, notes?: string) {
    return this.client.request({ method: 'POST', path: `/v1/runs/${enc(runId)}/gates/${enc(gate)}:approve`, schema: GateDecision, ...(notes ? { body: { notes } } : {}) });
  }

  reject(runId: string, gate: string, notes: string) {
    return this.client.request({ method: 'POST', path: `/v1/runs/${enc(runId)}/gates/${enc(gate)}:reject`, body: { notes }, schema: GateDecision });
  }
}
