// Every wire shape of the spec and CONTRACT.md, once. Read shapes are tolerant (unknown fields kept,
// unknown enum values accepted as strings); input shapes are what the service accepts.
import { z } from 'zod';
import { EVENT_KINDS, GATE_NAMES, MONETIZATION_VALUES } from './events.js';

/** A string that is usually one of `values` but may be anything the service adds later. */
const knownOr = <const T extends readonly string[]>(_values: T) =>
  z.string() as unknown as z.ZodType<T[number] | (string & {})>;
const time = z.string();
const nullableTime = z.string().nullable();

// ---------- read shapes (what the service answers) ----------

export const Run = z.looseObject({
  id: z.string(),
  mode: knownOr(['idea', 'ship']),
  status: knownOr(['running', 'awaiting_approval', 'accepted', 'rejected', 'failed', 'canceled']),
  stage: z.string(),
  gate_pending: z.string().nullable(),
  app_id: z.string().nullable(),
  created_at: time,
  updated_at: time.optional(),
});
export type Run = z.infer<typeof Run>;

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.looseObject({ data: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export const Gate = z.looseObject({
  name: knownOr(GATE_NAMES),
  state: knownOr(['waiting', 'pending', 'approved', 'rejected']),
  decided_at: nullableTime,
  notes: z.string().nullable(),
});
export type Gate = z.infer<typeof Gate>;
export const GateList = z.looseObject({ data: z.array(Gate) });
export const GateDecision = z.looseObject({ gate: Gate, run: Run });

export const Brand = z.looseObject({
  palette: z.array(z.string()).optional(),
  typeface: z.string().optional(),
  voice: z.string().optional(),
});
export const Screen = z.looseObject({ id: z.string(), title: z.string().optional(), purpose: z.string().optional() });
/** The App Spec as read: only `name` is relied on, everything else is kept as it comes. */
export const AppSpec = z.looseObject({
  name: z.string(),
  tagline: z.string().optional(),
  description: z.string().optional(),
  platforms: z.array(z.string()).optional(),
  bundle_id: z.string().optional(),
  category: z.string().optional(),
  audience: z.string().optional(),
  monetization: z.string().optional(),
  brand: Brand.optional(),
  screens: z.array(Screen).optional(),
  features: z.array(z.string()).optional(),
  source: z.looseObject({ repo_url: z.string().optional(), ref: z.string().optional() }).optional(),
});
export type AppSpec = z.infer<typeof AppSpec>;

export const Score = z.looseObject({ beauty: z.number(), harmony: z.number(), score: z.number(), total: z.number() });
export const PreflightCheck = z.looseObject({
  id: z.string(),
  title: z.string(),
  status: knownOr(['pass', 'warn', 'fail']),
  detail: z.string().nullable().optional(),
});
export const Scorecard = z.looseObject({
  score: Score,
  passed: z.boolean(),
  preflight: z.looseObject({ passed: z.boolean(), checks: z.array(PreflightCheck) }),
});
export type Scorecard = z.infer<typeof Scorecard>;

export const ArtifactEntry = z.looseObject({
  kind: z.string(),
  status: knownOr(['pending', 'ready']),
  content_type: z.string(),
  size: z.number().nullable(),
  sha256: z.string().nullable(),
  files: z.number(),
  updated_at: time,
});
export type ArtifactEntry = z.infer<typeof ArtifactEntry>;
export const ArtifactManifest = z.looseObject({ data: z.array(ArtifactEntry) });
export const ArtifactFile = z.looseObject({
  name: z.string(),
  content_type: z.string(),
  size: z.number(),
  sha256: z.string(),
  url: z.string(),
  expires_at: time,
});
export type ArtifactFile = z.infer<typeof ArtifactFile>;
/** `GET …/artifacts/{kind}`: inline JSON content, or files behind signed URLs. */
export const Artifact = z.union([
  z.looseObject({ kind: z.string(), content_type: z.string(), content: z.unknown() }),
  z.looseObject({ kind: z.string(), files: z.array(ArtifactFile) }),
]);

export const Webhook = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  status: z.string(),
  created_at: time,
});
export type Webhook = z.infer<typeof Webhook>;
export const WebhookWithSecret = Webhook.extend({ secret: z.string() });
export const Delivery = z.looseObject({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: knownOr(['pending', 'succeeded', 'failed']),
  attempts: z.number(),
  last_status_code: z.number().nullable(),
  next_attempt_at: nullableTime,
  created_at: time,
});
export type Delivery = z.infer<typeof Delivery>;
export const Deleted = z.looseObject({ id: z.string(), deleted: z.literal(true) });

export const EventData = z.looseObject({
  stage: z.string().optional(),
  percent: z.number().optional(),
  gate: z.string().optional(),
  decision: z.string().optional(),
  score: Score.optional(),
  passed: z.boolean().optional(),
  app_id: z.string().optional(),
  app_store_url: z.string().optional(),
  reason: z.string().optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
  mode: z.string().optional(),
  level: z.string().optional(),
  message: z.string().optional(),
  ts: z.string().optional(),
});
/** The envelope shared by webhooks and SSE (`type` is `log` for log lines on the stream). */
export const Event = z.looseObject({
  id: z.string(),
  type: z.string(),
  created_at: time,
  run_id: z.string(),
  data: EventData,
});
export type Event = z.infer<typeof Event>;

export const ErrorEnvelope = z.object({
  error: z.looseObject({ type: z.string(), code: z.string(), message: z.string(), field: z.string().optional() }),
});

// ---------- input shapes (what the service accepts) ----------

const nonEmpty = z.string().trim().min(1);
const hexColor = z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'a colour as #RRGGBB');
export const REPO_URL = /^(https:\/\/\S+|git@[^\s:]+:\S+)$/;

/** A valid App Spec as the sandbox keeps it; unknown keys are allowed and kept. */
export const AppSpecInput = z.looseObject({
  name: nonEmpty,
  tagline: z.string().optional(),
  description: z.string().optional(),
  platforms: z.array(z.enum(['ios', 'android'])).optional(),
  bundle_id: z.string().regex(/^[A-Za-z][\w-]*(\.[A-Za-z][\w-]*)+$/, 'a reverse-DNS id like com.example.app').optional(),
  category: z.string().optional(),
  audience: z.string().optional(),
  monetization: z.enum(MONETIZATION_VALUES).optional(),
  brand: z.looseObject({ palette: z.array(hexColor).optional(), typeface: z.string().optional(), voice: z.string().optional() }).optional(),
  screens: z.array(z.looseObject({ id: nonEmpty, title: z.string().optional(), purpose: z.string().optional() })).optional(),
  features: z.array(z.string()).optional(),
  source: z.looseObject({ repo_url: z.string().regex(REPO_URL, 'an https:// or git@ URL').optional(), ref: z.string().optional() }).optional(),
});
export type AppSpecInput = z.infer<typeof AppSpecInput>;

export const IdeaInput = z.object({
  pitch: nonEmpty,
  audience: nonEmpty,
  monetization: z.enum(MONETIZATION_VALUES),
});

export const RunCreateParams = z
  .object({
    mode: z.enum(['idea', 'ship']),
    idea: IdeaInput.optional(),
    source: z.union([z.string().regex(REPO_URL, 'a repository URL (https://… or git@…:…)'), AppSpecInput]).optional(),
  })
  .superRefine((v, ctx) => {
    // The field that does not belong is named first: it is the one to remove.
    if (v.idea !== undefined && v.source !== undefined)
      ctx.addIssue({ code: 'custom', path: ['source'], message: 'send either idea or source, not both' });
    else if (v.mode === 'idea' && v.source !== undefined)
      ctx.addIssue({ code: 'custom', path: ['source'], message: 'source is for ship mode; idea mode takes idea' });
    else if (v.mode === 'ship' && v.idea !== undefined)
      ctx.addIssue({ code: 'custom', path: ['idea'], message: 'idea is for idea mode; ship mode takes source' });
    else if (v.mode === 'idea' && v.idea === undefined)
      ctx.addIssue({ code: 'custom', path: ['idea'], message: 'idea is required in idea mode', params: { missing: true } });
    else if (v.mode === 'ship' && v.source === undefined)
      ctx.addIssue({ code: 'custom', path: ['source'], message: 'source is required in ship mode', params: { missing: true } });
  });
export type RunCreateParams = z.infer<typeof RunCreateParams>;

export const RejectParams = z.object({ notes: nonEmpty });
export const ApproveParams = z.object({ notes: z.string().optional() });

export const WebhookCreateParams = z.object({
  url: z.string().url(),
  events: z.union([z.tuple([z.literal('*')]), z.array(z.enum(EVENT_KINDS)).min(1)]),
});
export type WebhookCreateParams = z.infer<typeof WebhookCreateParams>;
