// The read-only checks: every list and get reachable from what the target holds, the error envelope, the
// limits on a list, each held against the contract's read shapes (judge.ts).
import type { RawAnswer } from '../../api/http.js';
import { TERMINAL_STATUSES } from '../../contract/events.js';
import { judge, judgeError, shown, type Schemas } from './judge.js';
import type { Probe } from './types.js';

interface Found {
  runs: Array<{ id?: unknown; status?: unknown }>;
  /** Whether the runs list came as the contract says (else there is nothing to pick a run from). */
  listed: boolean;
}

/** What one run's checks read (checkRun, checkStream): each said skipped when there is no run to read. */
export const RUN_OPS = [
  'GET /v1/runs/{id}',
  'GET /v1/runs/{id}/gates',
  'GET /v1/runs/{id}/spec',
  'GET /v1/runs/{id}/artifacts',
  'GET /v1/runs/{id}/scorecard',
  'SSE /v1/runs/{id}/events',
];

/** The run checks skipped, each with why: none listed, or the list could not be read. */
export function skipRunChecks(probe: Probe, found: Found): void {
  const why = found.listed ? 'no run on this target to read' : 'the runs list could not be read: no run to read';
  for (const op of RUN_OPS) probe.skip(op, why);
}

/** Whether a run of this status changes no more (its stream closes after its terminal event). */
export const ended = (status: unknown) => TERMINAL_STATUSES.has(status as string);

/** The run the checks of one run read: a finished one (it has the most to read, and its stream ends); else one
 * waiting at a gate (its stream goes quiet once replayed); a moving one last (its stream is read a bounded time). */
export function pickRun(found: Found): string | null {
  const ids = (status: (s: unknown) => boolean) =>
    found.runs.filter((r) => typeof r.id === 'string' && status(r.status)).map((r) => r.id as string);
  const [first] = [
    ...ids((s) => s === 'accepted'),
    ...ids(ended),
    ...ids((s) => s === 'awaiting_approval'),
    ...ids(() => true),
  ];
  return first ?? null;
}

/** A run waiting at a gate besides the one picked: its gates and spec are read too (a pending gate's shape is
 * seen only there), or null when there is none. */
export function waitingRun(found: Found, picked: string | null): string | null {
  const waiting = found.runs.find((r) => r.status === 'awaiting_approval' && typeof r.id === 'string');
  return waiting && waiting.id !== picked ? (waiting.id as string) : null;
}

/** The gates and spec of a run waiting at a gate: a gate pending a decision, and the spec it decides on. */
export async function checkWaitingRun(probe: Probe, s: Schemas, id: string): Promise<void> {
  const at = `/v1/runs/${encodeURIComponent(id)}`;
  const why = ' (a run waiting at a gate)';
  judge(probe, `GET /v1/runs/{id}/gates${why}`, await probe.raw('GET', `${at}/gates`), s.GateList);
  judge(probe, `GET /v1/runs/{id}/spec${why}`, await probe.raw('GET', `${at}/spec`), s.AppSpec);
}

/** The runs list (its first page, already read by the probe), and a walk to its second page. */
export async function checkRunList(probe: Probe, s: Schemas, first: RawAnswer): Promise<Found> {
  const firstPage = judge(probe, 'GET /v1/runs', first, s.pageOf(s.Run));
  const walk = 'GET /v1/runs (the next page)';
  const one = judge(probe, walk, await probe.raw('GET', '/v1/runs?limit=1'), s.pageOf(s.Run)) as Page | undefined;
  if (one && typeof one.next_cursor === 'string' && one.has_more) {
    const next = await probe.raw('GET', `/v1/runs?limit=1&cursor=${encodeURIComponent(one.next_cursor)}`);
    const page = judge(probe, walk, next, s.pageOf(s.Run)) as Page | undefined;
    const [a, b] = [one.data?.[0]?.id, page?.data?.[0]?.id];
    if (page && a !== undefined && a === b)
      probe.diverge({ operation: walk, path: 'data[].id', expected: 'the next page (another run)', got: shown(b) });
  } else if (one) probe.skip(walk, 'one run or none: there is no second page to walk to');
  const runs = (firstPage as Page | undefined)?.data;
  return { runs: Array.isArray(runs) ? runs : [], listed: Array.isArray(runs) };
}

interface Page {
  data?: Array<{ id?: unknown; status?: unknown }>;
  next_cursor?: unknown;
  has_more?: unknown;
}

/** A run and what hangs from it: gates, spec, artifacts manifest, scorecard (when ready). */
export async function checkRun(probe: Probe, s: Schemas, id: string): Promise<void> {
  const at = `/v1/runs/${encodeURIComponent(id)}`;
  judge(probe, 'GET /v1/runs/{id}', await probe.raw('GET', at), s.Run);
  judge(probe, 'GET /v1/runs/{id}/gates', await probe.raw('GET', `${at}/gates`), s.GateList);
  judge(probe, 'GET /v1/runs/{id}/spec', await probe.raw('GET', `${at}/spec`), s.AppSpec);
  judge(probe, 'GET /v1/runs/{id}/artifacts', await probe.raw('GET', `${at}/artifacts`), s.ArtifactManifest);
  const scorecard = await probe.raw('GET', `${at}/scorecard`);
  const op = 'GET /v1/runs/{id}/scorecard';
  if (scorecard.status === 404 && scorecard.text.includes('scorecard_not_ready')) {
    judge(probe, `${op} (not ready)`, scorecard, s.ErrorEnvelope, 404);
    probe.skip(op, `run ${id} has no scorecard yet`);
  } else judge(probe, op, scorecard, s.Scorecard);
}

/** Webhooks: the list, the first one, its deliveries. */
export async function checkWebhooks(probe: Probe, s: Schemas): Promise<void> {
  const list = judge(probe, 'GET /v1/webhooks', await probe.raw('GET', '/v1/webhooks'), s.pageOf(s.Webhook)) as
    | Page
    | undefined;
  const id = list?.data?.find((w) => typeof w.id === 'string')?.id as string | undefined;
  const ops = ['GET /v1/webhooks/{id}', 'GET /v1/webhooks/{id}/deliveries'];
  if (id === undefined) {
    const why = list ? 'no webhook on this target to read' : 'the webhooks list could not be read: no webhook to read';
    for (const op of ops) probe.skip(op, why);
    return;
  }
  const at = `/v1/webhooks/${encodeURIComponent(id)}`;
  judge(probe, ops[0]!, await probe.raw('GET', at), s.Webhook);
  judge(probe, ops[1]!, await probe.raw('GET', `${at}/deliveries`), s.pageOf(s.Delivery));
}

/** The error envelope, on ids that cannot exist: 404, `{error:{type,code,message}}`, the right code. */
export async function checkErrors(probe: Probe, s: Schemas): Promise<void> {
  const cases = [
    ['GET /v1/runs/{id} (no such run)', '/v1/runs/run_orc_verify_none', 'run_not_found'],
    ['GET /v1/webhooks/{id} (no such webhook)', '/v1/webhooks/wh_orc_verify_none', 'webhook_not_found'],
  ] as const;
  for (const [op, path, code] of cases) judgeError(probe, op, await probe.raw('GET', path), s, { status: 404, code });
}

/** The limits of a list: `limit` out of 1–100 is a 400 naming `limit`. */
export async function checkLimits(probe: Probe, s: Schemas): Promise<void> {
  for (const limit of [0, 101]) {
    const op = `GET /v1/runs?limit=${limit}`;
    const answer = await probe.raw('GET', `/v1/runs?limit=${limit}`);
    const error = judgeError(probe, op, answer, s, { status: 400, code: 'invalid_value' });
    if (error && error.field !== 'limit' && !String(error.message).includes('limit'))
      probe.diverge({ operation: op, path: 'error.field', expected: '"limit"', got: shown(error.field) });
  }
}
