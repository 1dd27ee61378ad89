// The artifact manifest and artifacts of a run. Binary files are described once, when their stage
// completes (name, size, sha256, and for the ipa its CRCs), kept with the run, and streamed from their
// generators when downloaded: listing costs nothing, and no file is ever held whole in memory.
import { createHash } from 'node:crypto';
import { ARTIFACT_KINDS, JSON_ARTIFACT_KINDS } from '../contract/events.js';
import type { ArtifactEntry, ArtifactFile } from '../contract/schemas.js';
import { Failure } from './failure.js';
import {
  checkSignedPath,
  completeIpa,
  ipaBytes,
  ipaLayout,
  ipaSha256,
  screenshotMetas,
  SCREENSHOT_SIZES,
  screenshotPng,
  signPath,
  type FileMeta,
  type IpaLayout,
  type SignedCheck,
} from './files.js';
import { metadataFor } from './generate.js';
import { SCREENSHOTS_DRAWN, screenshotInputsOf, type ScreenshotInputs } from './phone-screen.js';
import type { ArtifactMeta, RunRecord } from './store.js';

/** The stage index (in the sandbox's list) whose completion makes each kind ready. */
const READY_AFTER: Record<string, number> = {
  spec: 1,
  metadata: 2,
  screenshots: 3,
  ipa: 4,
  scorecard: 6,
  preflight: 6,
};
const CONTENT_TYPES: Record<string, string> = { screenshots: 'image/png', ipa: 'application/octet-stream' };
/** Screenshots are small once deflated; a few are kept so repeated downloads do not deflate again. */
const PNG_CACHE = 16;

export type BinaryKind = 'screenshots' | 'ipa';

export interface OpenFile {
  meta: FileMeta;
  open(start: number, end: number): AsyncIterable<Buffer>;
}

export class Artifacts {
  private readonly pngs = new Map<string, Buffer>();

  constructor(
    private readonly secret: string,
    private readonly ttlS: number,
    private readonly ipaMib: number,
  ) {}

  /** Ready when its stage has completed and, for binaries, its description has been made for that completion. */
  isReady(rec: RunRecord, kind: string): boolean {
    if (rec.furthest < (READY_AFTER[kind] ?? Number.POSITIVE_INFINITY)) return false;
    if (JSON_ARTIFACT_KINDS.has(kind)) return true;
    return this.meta(rec, kind as BinaryKind) !== null;
  }

  /** Which binary kinds of this run still need describing (after a stage completed, or at start-up). */
  due(rec: RunRecord): BinaryKind[] {
    return (['screenshots', 'ipa'] as const).filter(
      (k) => rec.furthest >= READY_AFTER[k]! && this.meta(rec, k) === null,
    );
  }

  /** Describes a binary kind once: sizes and digests, made by reading the generator through in slices. */
  async prepare(rec: RunRecord, kind: BinaryKind): Promise<ArtifactMeta> {
    const at = rec.artifactTimes[kind] ?? '';
    if (kind === 'screenshots')
      return { at, drawn: SCREENSHOTS_DRAWN, files: await screenshotMetas(screenshotInputs(rec)) };
    const layout = await completeIpa(
      ipaLayout(rec.artifactInputs.ipa ?? { name: rec.spec.name }, ipaLabel(rec), this.ipaMib),
    );
    return {
      at,
      mib: this.ipaMib,
      crcs: layout.crcs,
      files: [
        { name: layout.name, content_type: CONTENT_TYPES.ipa!, size: layout.size, sha256: await ipaSha256(layout) },
      ],
    };
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

  manifest(rec: RunRecord): ArtifactEntry[] {
    return ARTIFACT_KINDS.map((kind) => {
      const ready = this.isReady(rec, kind);
      const base = {
        kind,
        status: ready ? 'ready' : 'pending',
        content_type: CONTENT_TYPES[kind] ?? 'application/json',
        updated_at: rec.artifactTimes[kind] ?? rec.run.created_at,
      };
      if (!ready) return { ...base, size: null, sha256: null, files: 0 };
      if (JSON_ARTIFACT_KINDS.has(kind)) {
        const bytes = Buffer.from(JSON.stringify(this.jsonContent(rec, kind)));
        return { ...base, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), files: 0 };
      }
      const files = this.meta(rec, kind as BinaryKind)!.files;
      return {
        ...base,
        size: files.reduce((n, f) => n + f.size, 0),
        sha256: files.length === 1 ? files[0]!.sha256 : null,
        files: files.length,
      };
    });
  }

  artifact(rec: RunRecord, kind: string, origin: string, nowMs: number): unknown {
    if (!(ARTIFACT_KINDS as readonly string[]).includes(kind))
      throw new Failure(
        'unknown_kind',
        `unknown artifact kind ${JSON.stringify(kind)}: one of ${ARTIFACT_KINDS.join(', ')}`,
        'kind',
      );
    if (!this.isReady(rec, kind))
      throw new Failure('artifact_not_ready', `the ${kind} artifact of run ${rec.run.id} is not ready yet`, 'kind');
    if (JSON_ARTIFACT_KINDS.has(kind))
      return { kind, content_type: 'application/json', content: this.jsonContent(rec, kind) };
    // Rounded up, so a URL lives at least its full lifetime however late in a second it was made.
    const expires = Math.ceil(nowMs / 1000) + this.ttlS;
    const files: ArtifactFile[] = this.meta(rec, kind as BinaryKind)!.files.map((f) => {
      const path = filePath(rec.run.id, kind, f.name);
      return {
        ...f,
        url: `${origin}${path}?expires=${expires}&signature=${signPath(this.secret, path, expires)}`,
        expires_at: new Date(expires * 1000).toISOString(),
      };
    });
    return { kind, files };
  }

  verify(path: string, expires: string | null, signature: string | null, nowMs: number): SignedCheck {
    return checkSignedPath(this.secret, path, expires, signature, nowMs);
  }

  /** A file behind a signed path, to stream, or null if there is no such file. */
  lookup(rec: RunRecord, kind: string, name: string): OpenFile | null {
    if (JSON_ARTIFACT_KINDS.has(kind) || !this.isReady(rec, kind)) return null;
    const m = this.meta(rec, kind as BinaryKind)!;
    const index = m.files.findIndex((f) => f.name === name);
    if (index < 0) return null;
    const meta = m.files[index]!;
    if (kind === 'ipa') {
      const layout: IpaLayout = {
        ...ipaLayout(rec.artifactInputs.ipa ?? { name: rec.spec.name }, ipaLabel(rec), m.mib ?? this.ipaMib),
        crcs: m.crcs ?? [],
        size: meta.size,
      };
      return { meta, open: (start, end) => ipaBytes(layout, start, end) };
    }
    const png = async () => {
      const key = `${rec.run.id}:${m.at}:${index}`;
      let bytes = this.pngs.get(key);
      if (!bytes) {
        const sizes = SCREENSHOT_SIZES.length;
        bytes = await screenshotPng(screenshotInputs(rec), Math.floor(index / sizes), SCREENSHOT_SIZES[index % sizes]);
        this.pngs.set(key, bytes);
        while (this.pngs.size > PNG_CACHE) this.pngs.delete(this.pngs.keys().next().value!);
      }
      return bytes;
    };
    return {
      meta,
      open: async function* (start, end) {
        yield (await png()).subarray(start, end + 1);
      },
    };
  }

  private meta(rec: RunRecord, kind: BinaryKind): ArtifactMeta | null {
    return describedMeta(rec, kind);
  }
}

/** A binary kind's description, if it was made for the kind's latest making (else null: not ready), and for
 * screenshots by today's drawing (a record from before is described again). */
export function describedMeta(rec: RunRecord, kind: BinaryKind): ArtifactMeta | null {
  const m = rec.artifactMeta?.[kind];
  if (!m || m.at !== (rec.artifactTimes[kind] ?? '')) return null;
  return kind === 'screenshots' && m.drawn !== SCREENSHOTS_DRAWN ? null : m;
}

/** What a run's screenshots are drawn from: what 04_design captured. A record from before that kept only the
 * palette and the screens' ids (or nothing) takes the rest from the spec. */
export function screenshotInputs(rec: RunRecord): ScreenshotInputs {
  const kept = rec.artifactInputs.screenshots;
  if (kept && 'name' in kept) return kept;
  const spec = screenshotInputsOf(rec.spec);
  if (!kept) return spec;
  return {
    ...spec,
    palette: kept.palette,
    screens: kept.screens.map((id) => spec.screens.find((s) => s.id === id) ?? { id }),
  };
}

/** What the ipa's bytes are keyed by: the run and the build that made it. */
function ipaLabel(rec: RunRecord): string {
  return `${rec.run.id}:ipa:${rec.artifactTimes.ipa ?? ''}`;
}

export function filePath(runId: string, kind: string, name: string): string {
  return `/files/${encodeURIComponent(runId)}/${encodeURIComponent(kind)}/${encodeURIComponent(name)}`;
}
