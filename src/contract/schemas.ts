// Every wire shape of the spec and CONTRACT.md, once. Read shapes are tolerant (unknown fields kept,
// unknown enum values accepted as strings); input shapes are what the service accepts.
// zod/mini, not classic zod: classic gives every schema instance dozens of methods, which made building
// these ~45 schemas a cost at every start; mini builds them in a fraction of that (docs/figures.md).
import * as z from 'zod/mini';
import { ERROR_CODES, ERROR_TYPES } from './errors.js';
import { WEBHOOK_URL_PATTERN } from './keys.js';
import { EVENT_KINDS, GATE_DECISIONS, GATE_NAMES, LOG_EVENT, MONETIZATION_VALUES, STAGES } from './events.js';

/**
 * A schema built on first use. Building all of these costs milliseconds (docs/figures.md), paid by every
 * command that loads
 * this file, while `orc run get` needs two of them: each is made when something first touches it.
 * Same name, same type, same behaviour; the proxy hands every access to the real schema.
 */
function lazy<T extends object>(make: () => T): T {
  let real: T | undefined;
  const get = () => (real ??= make());
  return new Proxy({} as T, {
    get: (_t, key) => {
      const r = get();
      const v = Reflect.get(r, key, r) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(r) : v;
    },
    has: (_t, key) => Reflect.has(get(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      return d && { ...d, configurable: true };
    },
  });
}

/** The values a `knownOr` string names, for the library's type declarations (scripts/library.mjs). */
export const KNOWN_VALUES = new WeakMap<object, readonly string[]>();
/** A string that is usually one of `values` but may be anything the service adds later. */
const knownOr = <const T extends readonly string[]>(values: T) => {
  const schema = z.string();
  KNOWN_VALUES.set(schema, values);
  return schema as unknown as z.ZodMiniType<T[number] | (string & {})>;
};
/**
 * Strings the contract keeps a table of, whose type stays `string` (a stage, an event kind, an error code):
 * contract/unknowns.ts tells a value outside the table as it tells a `knownOr`'s.
 */
export const KNOWN_TABLES = new WeakMap<object, readonly string[]>();
export const TABLES = {
  stages: STAGES as readonly string[],
  eventKinds: [...EVENT_KINDS, LOG_EVENT] as readonly string[],
  errorCodes: Object.keys(ERROR_CODES) as readonly string[],
  errorTypes: Object.keys(ERROR_TYPES) as readonly string[],
};
const tabled = (table: readonly string[]) => {
  const schema = z.string();
  KNOWN_TABLES.set(schema, table);
  return schema;
};
const time = z.string();
const nullableTime = z.nullable(z.string());

// ---------- read shapes (what the service answers) ----------

export const Run = lazy(() =>
  z.looseObject({
    id: z.string(),
    mode: knownOr(['idea', 'ship']),
    status: knownOr(['running', 'awaiting_approval', 'accepted', 'rejected', 'failed', 'canceled']),
    stage: tabled(TABLES.stages),
    gate_pending: z.nullable(z.string()),
    app_id: z.nullable(z.string()),
    created_at: time,
    updated_at: z.optional(time),
  }),
);
export type Run = z.infer<typeof Run>;

export const pageOf = <T extends z.ZodMiniType>(item: T) =>
  z.looseObject({ data: z.array(item), next_cursor: z.nullable(z.string()), has_more: z.boolean() });
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** One decision at a gate, as the gate's `history` keeps it (CONTRACT.md, Gate history). */
export const GateHistoryEntry = lazy(() =>
  z.looseObject({
    decision: knownOr(GATE_DECISIONS),
    notes: z.nullable(z.string()),
    decided_at: time,
  }),
);
export type GateHistoryEntry = z.infer<typeof GateHistoryEntry>;
export const Gate = lazy(() =>
  z.looseObject({
    name: knownOr(GATE_NAMES),
    state: knownOr(['waiting', 'pending', 'approved', 'rejected']),
    decided_at: nullableTime,
    notes: z.nullable(z.string()),
    /** Every decision, oldest first; a service without it (or an older one) sends none. */
    history: z.optional(z.array(GateHistoryEntry)),
  }),
);
export type Gate = z.infer<typeof Gate>;
export const GateList = lazy(() => z.looseObject({ data: z.array(Gate) }));
export const GateDecision = lazy(() => z.looseObject({ gate: Gate, run: Run }));
export type GateDecision = z.infer<typeof GateDecision>;

export const Brand = lazy(() =>
  z.looseObject({
    palette: z.optional(z.array(z.string())),
    typeface: z.optional(z.string()),
    voice: z.optional(z.string()),
  }),
);
export const Screen = lazy(() =>
  z.looseObject({ id: z.string(), title: z.optional(z.string()), purpose: z.optional(z.string()) }),
);
/** The App Spec as read: only `name` is relied on, everything else is kept as it comes. */
export const AppSpec = lazy(() =>
  z.looseObject({
    name: z.string(),
    tagline: z.optional(z.string()),
    description: z.optional(z.string()),
    platforms: z.optional(z.array(z.string())),
    bundle_id: z.optional(z.string()),
    category: z.optional(z.string()),
    audience: z.optional(z.string()),
    monetization: z.optional(z.string()),
    brand: z.optional(Brand),
    screens: z.optional(z.array(Screen)),
    features: z.optional(z.array(z.string())),
    keywords: z.optional(z.array(z.string())),
    age_rating: z.optional(z.string()),
    privacy_policy_url: z.optional(z.string()),
    support_url: z.optional(z.string()),
    terms_url: z.optional(z.string()),
    source: z.optional(z.looseObject({ repo_url: z.optional(z.string()), ref: z.optional(z.string()) })),
  }),
);
export type AppSpec = z.infer<typeof AppSpec>;

export const Score = lazy(() =>
  z.looseObject({ beauty: z.number(), harmony: z.number(), score: z.number(), total: z.number() }),
);
export const PreflightCheck = lazy(() =>
  z.looseObject({
    id: z.string(),
    title: z.string(),
    status: knownOr(['pass', 'warn', 'fail']),
    detail: z.optional(z.nullable(z.string())),
    field: z.optional(z.nullable(z.string())),
    hint: z.optional(z.nullable(z.string())),
    /** A value at `field` that passes (the sandbox's addition). */
    suggestion: z.optional(z.unknown()),
  }),
);
/** One part of beauty or harmony, explained (CONTRACT.md, Additions). */
export const ScoreComponent = lazy(() =>
  z.looseObject({
    name: z.string(),
    value: z.number(),
    weight: z.number(),
    detail: z.optional(z.nullable(z.string())),
    of: z.optional(z.string()),
    field: z.optional(z.nullable(z.string())),
    hint: z.optional(z.nullable(z.string())),
    suggestion: z.optional(z.unknown()),
  }),
);
export const Scorecard = lazy(() =>
  z.looseObject({
    score: Score,
    passed: z.boolean(),
    preflight: z.looseObject({ passed: z.boolean(), checks: z.array(PreflightCheck) }),
    components: z.optional(z.array(ScoreComponent)),
  }),
);
export type Scorecard = z.infer<typeof Scorecard>;

export const ArtifactEntry = lazy(() =>
  z.looseObject({
    kind: z.string(),
    status: knownOr(['pending', 'ready']),
    content_type: z.string(),
    size: z.nullable(z.number()),
    sha256: z.nullable(z.string()),
    files: z.number(),
    updated_at: time,
  }),
);
export type ArtifactEntry = z.infer<typeof ArtifactEntry>;
export const ArtifactManifest = lazy(() => z.looseObject({ data: z.array(ArtifactEntry) }));
export const ArtifactFile = lazy(() =>
  z.looseObject({
    name: z.string(),
    content_type: z.string(),
    size: z.number(),
    sha256: z.string(),
    url: z.string(),
    expires_at: time,
  }),
);
export type ArtifactFile = z.infer<typeof ArtifactFile>;
/** `GET …/artifacts/{kind}`: inline JSON content, or files behind signed URLs. */
export const Artifact = lazy(() =>
  z.union([
    z.looseObject({ kind: z.string(), content_type: z.string(), content: z.unknown() }),
    z.looseObject({ kind: z.string(), files: z.array(ArtifactFile) }),
  ]),
);
export type Artifact = z.infer<typeof Artifact>;

export const Webhook = lazy(() =>
  z.looseObject({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    status: z.string(),
    created_at: time,
  }),
);
export type Webhook = z.infer<typeof Webhook>;
// An empty secret would let anyone sign: an answer with one is not a webhook orc can use.
export const WebhookWithSecret = lazy(() => z.extend(Webhook, { secret: z.string().check(z.minLength(1)) }));
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;
export const Delivery = lazy(() =>
  z.looseObject({
    id: z.string(),
    event_id: z.string(),
    event_type: tabled(TABLES.eventKinds),
    status: knownOr(['pending', 'succeeded', 'failed']),
    attempts: z.number(),
    last_status_code: z.nullable(z.number()),
    next_attempt_at: nullableTime,
    created_at: time,
  }),
);
export type Delivery = z.infer<typeof Delivery>;
/** Any JSON object (the sandbox's admin answers, shaped in sandbox-control.ts, are checked only to be one). */
export const AnyObject = lazy(() => z.record(z.string(), z.unknown()));
export const Deleted = lazy(() => z.looseObject({ id: z.string(), deleted: z.literal(true) }));

export const EventData = lazy(() =>
  z.looseObject({
    stage: z.optional(tabled(TABLES.stages)),
    percent: z.optional(z.number()),
    gate: z.optional(z.string()),
    decision: z.optional(z.string()),
    notes: z.optional(z.nullable(z.string())),
    score: z.optional(Score),
    passed: z.optional(z.boolean()),
    app_id: z.optional(z.string()),
    app_store_url: z.optional(z.string()),
    reason: z.optional(z.string()),
    error: z.optional(z.looseObject({ code: tabled(TABLES.errorCodes), message: z.string() })),
    mode: z.optional(z.string()),
    level: z.optional(z.string()),
    message: z.optional(z.string()),
    ts: z.optional(z.string()),
  }),
);
/** The envelope shared by webhooks and SSE (`type` is `log` for log lines on the stream). */
export const Event = lazy(() =>
  z.looseObject({
    id: z.string(),
    type: tabled(TABLES.eventKinds),
    created_at: time,
    run_id: z.string(),
    data: EventData,
  }),
);
export type Event = z.infer<typeof Event>;

export const ErrorEnvelope = lazy(() =>
  z.object({
    error: z.looseObject({
      type: tabled(TABLES.errorTypes),
      code: tabled(TABLES.errorCodes),
      message: z.string(),
      field: z.optional(z.string()),
    }),
  }),
);

// ---------- input shapes (what the service accepts) ----------

// Trimmed before its length is checked: the JSON Schema made from it says the same as a pattern (a non-space).
const nonEmpty = z.string().check(z.trim(), z.minLength(1)).register(z.globalRegistry, { pattern: '\\S' });
const hexColor = z.string().check(z.regex(/^#[0-9A-Fa-f]{6}$/, 'a colour as #RRGGBB'));
export const REPO_URL = /^(https:\/\/\S+|git@[^\s:]+:\S+)$/;

/** A valid App Spec as the sandbox keeps it; unknown keys are allowed and kept. */
export const AppSpecInput = lazy(() =>
  z.looseObject({
    name: nonEmpty,
    tagline: z.optional(z.string()),
    description: z.optional(z.string()),
    platforms: z.optional(z.array(z.enum(['ios', 'android']))),
    bundle_id: z.optional(
      z.string().check(z.regex(/^[A-Za-z][\w-]*(\.[A-Za-z][\w-]*)+$/, 'a reverse-DNS id like com.example.app')),
    ),
    category: z.optional(z.string()),
    audience: z.optional(z.string()),
    monetization: z.optional(z.enum(MONETIZATION_VALUES)),
    brand: z.optional(
      z.looseObject({
        palette: z.optional(z.array(hexColor)),
        typeface: z.optional(z.string()),
        voice: z.optional(z.string()),
      }),
    ),
    screens: z.optional(z.array(z.looseObject({ id: nonEmpty, title: nonEmpty, purpose: z.optional(z.string()) }))),
    features: z.optional(z.array(z.string())),
    keywords: z.optional(z.array(z.string())),
    age_rating: z.optional(z.string()),
    privacy_policy_url: z.optional(z.string()),
    support_url: z.optional(z.string()),
    terms_url: z.optional(z.string()),
    source: z.optional(
      z.looseObject({
        repo_url: z.optional(z.string().check(z.regex(REPO_URL, 'an https:// or git@ URL'))),
        ref: z.optional(z.string()),
      }),
    ),
  }),
);
export type AppSpecInput = z.infer<typeof AppSpecInput>;

export const IdeaInput = lazy(() =>
  z.object({
    pitch: nonEmpty,
    audience: nonEmpty,
    monetization: z.enum(MONETIZATION_VALUES),
  }),
);

export type IdeaInput = z.infer<typeof IdeaInput>;

export const RunCreateParams = lazy(() =>
  z
    .object({
      mode: z.enum(['idea', 'ship']),
      idea: z.optional(IdeaInput),
      source: z.optional(
        z.union([z.string().check(z.regex(REPO_URL, 'a repository URL (https://… or git@…:…)')), AppSpecInput]),
      ),
    })
    .check(
      z.superRefine((v, ctx) => {
        // The field that does not belong is named first: it is the one to remove.
        if (v.idea !== undefined && v.source !== undefined)
          ctx.addIssue({ code: 'custom', path: ['source'], message: 'send either idea or source, not both' });
        else if (v.mode === 'idea' && v.source !== undefined)
          ctx.addIssue({ code: 'custom', path: ['source'], message: 'source is for ship mode; idea mode takes idea' });
        else if (v.mode === 'ship' && v.idea !== undefined)
          ctx.addIssue({ code: 'custom', path: ['idea'], message: 'idea is for idea mode; ship mode takes source' });
        else if (v.mode === 'idea' && v.idea === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['idea'],
            message: 'idea is required in idea mode',
            params: { missing: true },
          });
        else if (v.mode === 'ship' && v.source === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['source'],
            message: 'source is required in ship mode',
            params: { missing: true },
          });
      }),
    ),
);

export type RunCreateParams = z.infer<typeof RunCreateParams>;

export const RejectParams = lazy(() => z.object({ notes: nonEmpty }));
export const ApproveParams = lazy(() => z.object({ notes: z.optional(z.string()) }));

export const WebhookCreateParams = lazy(() =>
  z.object({
    // What JSON Schema can say of webhookUrlProblem's rule, for the OpenAPI document; the rule itself is checked
    // by the sandbox (and orc) after this.
    url: z.url().register(z.globalRegistry, {
      pattern: WEBHOOK_URL_PATTERN,
      description: 'https://, or http:// to this machine (localhost, 127.x.x.x, [::1]); no user name or password',
    }),
    events: z.union([z.tuple([z.literal('*')]), z.array(z.enum(EVENT_KINDS)).check(z.minLength(1))]),
  }),
);
export type WebhookCreateParams = z.infer<typeof WebhookCreateParams>;

/**
 * An event as the tolerant reader takes it: the envelope must hold, but a `data` field of an unexpected
 * type (a `percent` that is a string) is left out of the typed view rather than dropping the whole event;
 * the envelope as it came stays available to show as it is.
 */
export function readEvent(json: unknown): Event | null {
  if (json === null || typeof json !== 'object') return null;
  // The shape nearly every event has is checked by hand before this (shapes.ts isPlainEvent, in the watch
  // engine): a stream of thousands of log lines need not go through zod one by one.
  const envelope = json as Record<string, unknown>;
  let data: Record<string, unknown> =
    envelope.data !== null && typeof envelope.data === 'object' && !Array.isArray(envelope.data)
      ? { ...(envelope.data as Record<string, unknown>) }
      : {};
  for (let tries = 0; tries < 20; tries++) {
    const parsed = Event.safeParse({ ...envelope, data });
    if (parsed.success) return parsed.data;
    const bad = parsed.error.issues
      .filter((i) => i.path[0] === 'data' && i.path.length > 1)
      .map((i) => String(i.path[1]));
    if (bad.length === 0) return null; // the envelope itself is broken: nothing to show
    data = Object.fromEntries(Object.entries(data).filter(([k]) => !bad.includes(k)));
  }
  return null;
}
