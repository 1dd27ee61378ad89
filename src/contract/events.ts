// Event kinds (spec 6.1 plus CONTRACT.md) and the run lifecycle facts both sides need.

/** Kinds a webhook can subscribe to. `run.canceled` is the sandbox's additive kind: a canceled run needs a terminal event too. */
export const EVENT_KINDS = [
  'run.created',
  'run.stage_changed',
  'run.gate_pending',
  'run.gate_resolved',
  'run.scored',
  'run.accepted',
  'run.rejected',
  'run.failed',
  'run.canceled',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The SSE `event:` name of build and QA log lines; never delivered to webhooks. */
export const LOG_EVENT = 'log';

/** Events after which a run changes no more; the SSE stream closes after one of them. */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set([
  'run.accepted',
  'run.rejected',
  'run.failed',
  'run.canceled',
]);

export const RUN_STATUSES = ['running', 'awaiting_approval', 'accepted', 'rejected', 'failed', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['accepted', 'rejected', 'failed', 'canceled']);

export const GATE_NAMES = ['idea', 'brand', 'final'] as const;
export type GateName = (typeof GATE_NAMES)[number];
export const GATE_STATES = ['waiting', 'pending', 'approved', 'rejected'] as const;
/** What a decision at a gate is (`decision` in run.gate_resolved and in a gate's history). */
export const GATE_DECISIONS = ['approved', 'rejected'] as const;

export const MONETIZATION_VALUES = ['free', 'paid', 'freemium', 'subscription', 'ads', 'in_app_purchases'] as const;

export const ARTIFACT_KINDS = ['screenshots', 'ipa', 'metadata', 'scorecard', 'preflight', 'spec'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];
export const JSON_ARTIFACT_KINDS: ReadonlySet<string> = new Set(['metadata', 'scorecard', 'preflight', 'spec']);

export const LOG_LEVELS = ['info', 'warn', 'error'] as const;

/** The stages a run goes through, in order; the service may add others (order them by compareStages). */
export const STAGES = [
  '01_intake',
  '02_concept',
  '03_brand',
  '04_design',
  '05_build',
  '06_qa',
  '07_scoring',
  '08_submission',
  '09_review',
] as const;

/** Stage ids are `NN_name`; order them by the number, never by a fixed list (CONTRACT.md, tolerant reader). */
export function compareStages(a: string, b: string): number {
  const na = Number.parseInt(a, 10);
  const nb = Number.parseInt(b, 10);
  if (Number.isNaN(na) || Number.isNaN(nb)) return a.localeCompare(b);
  return na - nb || a.localeCompare(b);
}
