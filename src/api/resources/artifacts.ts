// Artifacts: the manifest of a run, and one kind (inline JSON, or files behind signed URLs).
import { Artifact, ArtifactManifest } from '../../contract/schemas.js';
import type { ApiClient } from '../client.js';

const enc = encodeURIComponent;

export class Artifacts {
  constructor(private readonly client: ApiClient) {}

  async manifest(runId: string) {
    return (await this.client.request({ method: 'GET', path: `/v1/runs/${enc(runId)}/artifacts`, schema: ArtifactManifest })).data;
  }

  retrieve(runId: string, kind: string) {
    return this.client.request({ method: 'GET', path: `/v1/runs/${enc(runId)}/artifacts/${enc(kind)}`, schema: Artifact });
  }
}
