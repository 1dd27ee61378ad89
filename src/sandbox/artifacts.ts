// The artifact manifest and artifacts of a run; binary files are built on first use and cached.
import { createHash } from 'node:crypto';
import { ARTIFACT_KINDS, JSON_ARTIFACT_KINDS } from '../contract/events.js';
import type { ArtifactEntry, ArtifactFile } from '../contract/schemas.js';
import { Failure } from './failure.js';
import { checkSignedPath, ipaFile, screenshotFiles, signPath, type BinaryFile, type SignedCheck } from './files.js';
import { metadataFor } from './generate.js';
import type { RunRecord } from './store.js';

/** The stage index (in the sandbox's list) whose completion makes each kind ready. */
const READY_AFTER: Record<string, number> = { spec: 1, metadata: 2, screenshots: 3, ipa: 4, scorecard: 6, preflight: 6 };
const CONTENT_TYPES: Record<string, string> = { screenshots: 'image/png', ipa: 'application/octet-stream' };
const CACHE_ENTRIES = 6;

export class Artifacts {
  private readonly cache = new Map<string, BinaryFile[]>();

  constructor(
    private readonly secret: string,
    private readonly ttlS: number,
  ) {}

  isReady(rec: RunRecord, kind: string): boolean {
    return rec.furthest >= (READY_AFTER[kind] ?? Number.POSITIVE_INFINITY);
  }

  jsonContent(rec: RunRecord, kind: string): unknown {
    switch (kind) {
      case 'spec':
        return rec.spec;
      case 'metadata':
        return metadataFor(rec.spec);
      case 'scorecard':
        return rec.scorecard;
      case 'preflight':
        return rec.scorecard?.preflight ?? null;
      default:
        return null;
    }
  }

  /** Builds (or reuses) the files of a binary kind, from the inputs frozen when its stage completed. */
  binaries(rec: RunRecord, kind: string): BinaryFile[] {
    const key = `${rec.run.id}:${kind}:${rec.artifactTimes[kind] ?? ''}`;
    let files = this.cache.get(key);
    if (files) {
      this.cache.delete(key); // re-insert: most recently used last
      this.cache.set(key, files);
      return files;
    }
    if (kind === 'screenshots') {
      const inputs = rec.artifactInputs.screenshots ?? { palette: rec.spec.brand?.palette ?? [], screens: (rec.spec.screens ?? []).map((s) => s.id) };
      files = screenshotFiles(inputs.palette, inputs.screens);
    } else {
      const inputs = rec.artifactInputs.ipa ?? { name: rec.spec.name };
      files = [ipaFile(inputs, key)];
    }
    this.cache.set(key, files);
    while (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return files;
  }

  manifest(rec: RunRecord): ArtifactEntry[] {
    return ARTIFACT_KINDS.map((kind) => {
      const ready = this.isReady(rec, kind);
      const base = { kind, status: ready ? 'ready' : 'pending', content_type: CONTENT_TYPES[kind] ?? 'application/json', updated_at: rec.artifactTimes[kind] ?? rec.run.created_at };
      if (!ready) return { ...base, size: null, sha256: null, files: 0 };
      if (JSON_ARTIFACT_KINDS.has(kind)) {
        const bytes = Buffer.from(JSON.stringify(this.jsonContent(rec, kind)));
        return { ...base, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), files: 0 };
      }
      const files = this.binaries(rec, kind);
      return { ...base, size: files.reduce((n, f) => n + f.bytes.length, 0), sha256: files.length === 1 ? files[0]!.sha256 : null, files: files.length };
    });
  }

  artifact(rec: RunRecord, kind: string, origin: string, nowMs = Date.now()): unknown {
    if (!(ARTIFACT_KINDS as readonly string[]).includes(kind)) throw new Failure('unknown_kind', `unknown artifact kind ${JSON.stringify(kind)}: one of ${ARTIFACT_KINDS.join(', ')}`, 'kind');
    if (!this.isReady(rec, kind)) throw new Failure('artifact_not_ready', `the ${kind} artifact of run ${rec.run.id} is not ready yet`, 'kind');
    if (JSON_ARTIFACT_KINDS.has(kind)) return { kind, content_type: 'application/json', content: this.jsonContent(rec, kind) };
    const expires = Math.floor(nowMs / 1000) + this.ttlS;
    const files: ArtifactFile[] = this.binaries(rec, kind).map((f) => {
      const path = filePath(rec.run.id, kind, f.name);
      return {
        name: f.name,
        content_type: f.content_type,
        size: f.bytes.length,
        sha256: f.sha256,
        url: `${origin}${path}?expires=${expires}&signature=${signPath(this.secret, path, expires)}`,
        expires_at: new Date(expires * 1000).toISOString(),
      };
    });
    return { kind, files };
  }

  verify(path: string, expires: string | null, signature: string | null, nowMs = Date.now()): SignedCheck {
    return checkSignedPath(this.secret, path, expires, signature, nowMs);
  }

  /** The bytes behind a signed path, or null if there is no such file. */
  lookup(rec: RunRecord, kind: string, name: string): BinaryFile | null {
    if (JSON_ARTIFACT_KINDS.has(kind) || !this.isReady(rec, kind)) return null;
    return this.binaries(rec, kind).find((f) => f.name === name) ?? null;
  }
}

export function filePath(runId: string, kind: string, name: string): string {
  return `/files/${encodeURIComponent(runId)}/${encodeURIComponent(kind)}/${encodeURIComponent(name)}`;
}
