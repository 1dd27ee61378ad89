// The App Spec of a run: read it, or send a JSON Merge Patch.
import type { AppSpec } from '../../contract/schemas.js';
import type { HttpClient } from '../http.js';
import { path } from '../path.js';

export class Spec {
  constructor(private readonly http: HttpClient) {}

  retrieve(runId: string): Promise<AppSpec> {
    return this.http.json({ method: 'GET', target: path`/v1/runs/${runId}/spec`, schema: (s) => s.AppSpec });
  }

  update(runId: string, patch: Record<string, unknown>): Promise<AppSpec> {
    return this.http.json({
      method: 'PATCH',
      target: path`/v1/runs/${runId}/spec`,
      body: patch,
      contentType: 'application/merge-patch+json',
      schema: (s) => s.AppSpec,
    });
  }
}
