// Artifacts: the manifest of a run, and one kind (inline JSON, or files behind signed URLs).
import type { Artifact, ArtifactManifest } from '../../contract/schemas.js';
import { isArtifact, isArtifactManifest } from '../../contract/shapes.js';
import type { HttpClient } from '../http.js';
import { path } from '../path.js';

export class Artifacts {
  constructor(private readonly http: HttpClient) {}

  async manifest(runId: string) {
    return (
      await this.http.json({
        method: 'GET',
        target: path`/v1/runs/${runId}/artifacts`,
        schema: (s) => s.ArtifactManifest,
        quick: isArtifactManifest,
      })
    ).data;
  }

  retrieve(runId: string, kind: string) {
    return this.http.json({
      method: 'GET',
      target: path`/v1/runs/${runId}/artifacts/${kind}`,
      schema: (s) => s.Artifact,
      quick: isArtifact,
    });
  }

  /** One file behind its signed URL: no key, from byte `from` on. */
  file(url: string, opts: { from?: number; signal?: AbortSignal; idleMs?: number } = {}) {
    return this.http.download(url, opts);
  }
}
