// The read shapes nearly every answer has, checked by hand: `orc run get`, `orc watch` and the error
// envelope need no zod at all (its core, which every command loaded, was a cost at each start: docs/figures.md).
// Each check accepts exactly what its zod schema in schemas.ts accepts for the common case, and says
// false otherwise: the caller then loads the schema, which has the last word (and the words for what is
// wrong). test/contract/shapes.test.ts holds the two to the same answers.
import type { Artifact, ArtifactEntry, ArtifactFile, Event, Run } from './schemas.js';

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const nullableString = (v: unknown) => v === null || typeof v === 'string';

/** A Run (schemas.ts `Run`): its fields of the right types, others kept. */
export function isRun(json: unknown): json is Run {
  if (!isObject(json)) return false;
  const r = json;
  return (
    isString(r.id) &&
    isString(r.mode) &&
    isString(r.status) &&
    isString(r.stage) &&
    nullableString(r.gate_pending) &&
    nullableString(r.app_id) &&
    isString(r.created_at) &&
    (r.updated_at === undefined || isString(r.updated_at))
  );
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** One kind in a run's artifact manifest (schemas.ts `ArtifactEntry`). */
function isArtifactEntry(json: unknown): json is ArtifactEntry {
  if (!isObject(json)) return false;
  const a = json;
  return (
    isString(a.kind) &&
    isString(a.status) &&
    isString(a.content_type) &&
    (a.size === null || isNumber(a.size)) &&
    nullableString(a.sha256) &&
    isNumber(a.files) &&
    isString(a.updated_at)
  );
}

/** A run's artifact manifest (schemas.ts `ArtifactManifest`). */
export function isArtifactManifest(json: unknown): json is { data: ArtifactEntry[] } {
  return isObject(json) && Array.isArray(json.data) && json.data.every(isArtifactEntry);
}

function isArtifactFile(json: unknown): json is ArtifactFile {
  if (!isObject(json)) return false;
  const f = json;
  return (
    isString(f.name) &&
    isString(f.content_type) &&
    isNumber(f.size) &&
    isString(f.sha256) &&
    isString(f.url) &&
    isString(f.expires_at)
  );
}

/** One kind of a run's artifacts (schemas.ts `Artifact`): inline content, or files behind signed URLs. */
export function isArtifact(json: unknown): json is Artifact {
  if (!isObject(json) || !isString(json.kind)) return false;
  return isString(json.content_type) || (Array.isArray(json.files) && json.files.every(isArtifactFile));
}

/** A page of items (schemas.ts `pageOf`), each passing `item`. */
export function isPageOf<T>(item: (json: unknown) => json is T) {
  return (json: unknown): json is { data: T[]; next_cursor: string | null; has_more: boolean } =>
    isObject(json) &&
    Array.isArray(json.data) &&
    json.data.every(item) &&
    nullableString(json.next_cursor) &&
    typeof json.has_more === 'boolean';
}

/** The error envelope (schemas.ts `ErrorEnvelope`): its error's fields, or null when it is not one. */
export function errorEnvelope(json: unknown): { type: string; code: string; message: string; field?: string } | null {
  if (!isObject(json) || !isObject(json.error)) return null;
  const e = json.error;
  if (!isString(e.type) || !isString(e.code) || !isString(e.message) || !(e.field === undefined || isString(e.field)))
    return null;
  return { type: e.type, code: e.code, message: e.message, ...(e.field === undefined ? {} : { field: e.field }) };
}

/** EventData's plain fields by type (`string|null`: a string or null): an event whose data holds only these
 * (or nothing it knows) is valid. */
const PLAIN_DATA: Record<string, 'string' | 'string|null' | 'number' | 'boolean'> = {
  stage: 'string',
  percent: 'number',
  gate: 'string',
  decision: 'string',
  notes: 'string|null',
  passed: 'boolean',
  app_id: 'string',
  app_store_url: 'string',
  reason: 'string',
  mode: 'string',
  level: 'string',
  message: 'string',
  ts: 'string',
};

/** A value data may hold under `key`: a plain field's type (or absent); for a field it does not know, anything
 * but the nested shapes. */
function plainValue(key: string, v: unknown): boolean {
  const want = Object.hasOwn(PLAIN_DATA, key) ? PLAIN_DATA[key] : undefined;
  if (!want) return key !== 'score' && key !== 'error';
  if (v === undefined || (v === null && want === 'string|null')) return true;
  return typeof v === (want === 'string|null' ? 'string' : want);
}

/** True when `json` is an Event as the schema says, by the fields' types alone, with no `score` or `error`
 * in its data (those nested shapes are left to zod). */
export function isPlainEvent(json: unknown): json is Event {
  if (!isObject(json)) return false;
  const e = json;
  if (
    typeof e.id !== 'string' ||
    typeof e.type !== 'string' ||
    typeof e.created_at !== 'string' ||
    typeof e.run_id !== 'string'
  )
    return false;
  const data = e.data;
  if (!isObject(data)) return false;
  for (const key in data) if (!plainValue(key, data[key])) return false;
  return true;
}
