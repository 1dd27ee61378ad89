// A binary artifact is described (sizes, digests) once, when its stage has completed, off the request path
// and in slices: listing artifacts then reads only what the run keeps. One file at a time, so describing
// several large ipas never adds up in memory.
import type { Artifacts } from './artifacts.js';
import type { SandboxService } from './service.js';
import type { Store } from './store.js';

export class Describer {
  private readonly describing = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly artifacts: Artifacts,
    private readonly service: SandboxService,
    private readonly log: (line: string) => void,
  ) {}

  /** Queues what of this run's binary artifacts is due for a description. */
  describe(runId: string): void {
    const rec = this.store.runs.get(runId);
    if (!rec) return;
    for (const kind of this.artifacts.due(rec)) {
      const job = `${runId}:${kind}:${rec.artifactTimes[kind] ?? ''}`;
      if (this.describing.has(job)) continue;
      this.describing.add(job);
      this.queue = this.queue
        .then(async () => {
          const current = this.store.runs.get(runId);
          if (this.stopped || !current) return;
          const meta = await this.artifacts.prepare(current, kind);
          if (!this.stopped) this.service.setArtifactMeta(runId, kind, meta);
        })
        .catch((err: Error) => this.log(`sandbox: could not describe the ${kind} of ${runId} (${err.message})`))
        .finally(() => this.describing.delete(job));
    }
  }

  stop(): void {
    this.stopped = true;
  }
}
