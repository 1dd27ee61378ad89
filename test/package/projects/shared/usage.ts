// A user's code using the library as its pages show (no top-level await: it compiles as ESM and CommonJS).
import {
  ApiError,
  NotFoundError,
  Orc,
  ValidationError,
  WaitTimeoutError,
  WebhookVerificationError,
  webhooks,
  type ArtifactKind,
  type Event,
  type GateName,
  type Run,
  type RunStatus,
} from 'orc-cli';
import { startSandbox } from 'orc-cli/testing';

/** Every run of a status, page after page. */
export async function idsOf(orc: Orc, status: RunStatus): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of orc.runs.list({ status })) ids.push(run.id);
  return ids;
}

/** A run's events as they come, and what it shipped. */
export async function follow(orc: Orc, run: Run): Promise<{ kinds: string[]; files: number }> {
  const kinds: string[] = [];
  for await (const event of orc.runs.events(run.id)) kinds.push(event.type);
  const kind: ArtifactKind = 'screenshots';
  const outcome = await orc.artifacts.download(run.id, { dir: 'out', kinds: [kind] });
  await orc.artifacts.retrieve(run.id, 'scorecard');
  await orc.spec.update(run.id, { tagline: null });
  return { kinds, files: outcome.files.length };
}

/** What a caller tells apart: not found, bad input, a wait given up, any other answer. */
export async function describe(orc: Orc, id: string): Promise<string> {
  try {
    const run = await orc.runs.waitFor(id, { until: 'gate', timeout: 5_000, signal: AbortSignal.timeout(10_000) });
    // gate_pending is a string in the contract's Run (a gate name the service may add): the caller narrows it.
    const gate = run.gate_pending as GateName | null;
    if (gate) await orc.gates.reject(id, gate, { notes: 'not yet' });
    return run.status;
  } catch (err) {
    if (err instanceof NotFoundError) return `${err.status} ${err.code} ${err.requestId ?? ''}`;
    if (err instanceof ValidationError) return `bad ${err.field ?? ''}`;
    if (err instanceof WaitTimeoutError) return 'still going';
    if (err instanceof ApiError) return `${err.status} ${err.message}`;
    throw err;
  }
}

/** A webhook receiver's check, on the raw body and the request's headers; rotation: two secrets. */
export function receive(body: string | Buffer, headers: Record<string, string | string[] | undefined>): Event | null {
  try {
    return webhooks.unwrap(body, headers, ['whsec_new', 'whsec_old'], { tolerance: 300 });
  } catch (err) {
    if (err instanceof WebhookVerificationError && err.reason !== 'no_secret') return null;
    throw err;
  }
}

/** The sandbox for a test: a manual clock, one run moved to its first gate. */
export async function atFirstGate(): Promise<Run> {
  const sandbox = await startSandbox({ clock: 'manual', stageMs: 10, seed: 7 });
  try {
    const run = await sandbox.client.runs.create({
      mode: 'idea',
      idea: { pitch: 'A habit tracker', audience: 'students', monetization: 'free' },
    });
    await sandbox.advance({ run: run.id, to: 'gate:idea' });
    await sandbox.advance('90s');
    await sandbox.trigger('run.failed', { run: run.id, error: 'build_failed: no' });
    await sandbox.faults.add({ route: 'GET /v1/runs/{run}', status: 503, times: 1 });
    await sandbox.reset();
    await sandbox.export();
    return await sandbox.client.runs.retrieve(run.id);
  } finally {
    await sandbox.stop();
  }
}
