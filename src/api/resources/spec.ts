// The App Spec of a run: read it, or send a JSON Merge Patch.
import { AppSpec } from '../../contract/schemas.js';
import type { ApiClient } from '../client.js';

const enc = encodeURIComponent;

export class Spec {
  constructor(private readonly client: ApiClient) {}

  retrieve(runId: string): Promise<AppSpec> {
    return this.client.request({ method: 'GET', path: `/v1/runs/${enc(runId)}/spec`, schema: AppSpec });
  }

  update(runId: string, patch: Record<string, unknown>): Promise<AppSpec> {
    return this.client.request({ method: 'PATCH', path: `/v1/runs/${enc(runId)}/spec`, body: patch, contentType: 'application/merge-patch+json', schema: AppSpec });
  }
}
