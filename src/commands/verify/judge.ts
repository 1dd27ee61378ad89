// How one answer is held against the contract: its headers, its status, its body read as JSON and parsed with
// the contract's read shape (what is missing or of the wrong type), and walked for what the contract does not
// know (a field it does not have, a status it does not know). The read-only checks and --write use it alike.
import type { ZodMiniType } from 'zod/mini';
import type { RawAnswer } from '../../api/http.js';
import { unknownsOf, type Unknown } from '../../contract/unknowns.js';
import { isClean, parseServiceJson } from '../../lib/sanitize.js';
import type { Divergence, Probe } from './types.js';

export type Schemas = typeof import('../../contract/schemas.js');

/** A value as a divergence shows it: JSON, cut to 80 characters; `nothing` when absent. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

const INTEGER = /^\d+$/;

/** The headers every answer carries (CONTRACT.md; the document's components/headers): X-Request-Id; the
 * rate-limit headers, whole numbers, all three or none (a sandbox with no limit on sends none); Retry-After on
 * a 429 or 503. */
export function checkHeaders(probe: Probe, operation: string, answer: Pick<RawAnswer, 'status' | 'headers'>): void {
  const header = (name: string) => {
    const v = answer.headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = header('X-Request-Id');
  if (!id) probe.diverge({ operation, path: 'header X-Request-Id', expected: 'present (req_…)', got: shown(id) });
  const limits = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
  const integers = limits.some((n) => header(n) !== undefined) ? limits : [];
  if (answer.status === 429 || answer.status === 503) integers.push('Retry-After');
  for (const name of integers) {
    const v = header(name);
    if (v === undefined || !INTEGER.test(v))
      probe.diverge({ operation, path: `header ${name}`, expected: 'a whole number of 0 or more', got: shown(v) });
  }
}

/**
 * Text from the target read as JSON, sanitised as everywhere in orc (what is judged and printed has no control
 * characters); a string or key that had any is itself a divergence at `path`, shown escaped. Throws when the
 * text is not JSON.
 */
export function parseJudged(text: string, tell: (d: Omit<Divergence, 'operation'>) => void, path = 'body'): unknown {
  const seen: { dirty?: boolean } = {};
  const value = parseServiceJson(text, seen);
  if (seen.dirty) tell({ path, expected: 'text without control characters', got: firstDirty(text) });
  return value;
}

/** The first string or key in the JSON text that carries a control, as JSON with every control escaped. */
function firstDirty(text: string): string {
  let found = '';
  JSON.parse(text, (key: string, value: unknown) => {
    for (const v of [key, value]) if (!found && typeof v === 'string' && !isClean(v)) found = v;
    return value;
  });
  // JSON.stringify escapes C0 controls; C1 and the bidi controls are escaped here.
  const escaped = [...JSON.stringify(found)]
    .map((c) => (isClean(c) ? c : `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`))
    .join('');
  return escaped.length > 80 ? `${escaped.slice(0, 79)}…` : escaped;
}

/** The JSON body of an answer, or undefined (said as a divergence) when it is not JSON. */
export function bodyOf(probe: Probe, operation: string, answer: RawAnswer): unknown {
  try {
    return parseJudged(answer.text, (d) => probe.diverge({ ...d, operation }));
  } catch {
    probe.diverge({ operation, path: 'body', expected: 'JSON', got: shown(answer.text.slice(0, 80)) });
    return undefined;
  }
}

/** Everything `schema` finds missing or of the wrong type in `value`, and everything it lets pass unknown. */
export function checkShape(probe: Probe, operation: string, schema: ZodMiniType, value: unknown, prefix = ''): void {
  const parsed = schema.safeParse(value);
  // The same fault in every item of a list is one divergence (shown with the first item's value).
  const told = new Set<string>();
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const path = prefix + pathOf(issue.path);
    const expected =
      issue.code === 'invalid_type' ? `${article(String(issue.expected))} ${issue.expected}` : issue.message;
    if (told.has(`${path}\u0000${expected}`)) continue;
    told.add(`${path}\u0000${expected}`);
    probe.diverge({ operation, path, expected, got: shown(valueAt(value, issue.path)) });
  }
  for (const u of unknownsOf(schema, value)) probe.diverge(unknownDivergence(operation, u, prefix));
}

function unknownDivergence(operation: string, u: Unknown, prefix: string) {
  const path = prefix + u.path;
  if (u.kind === 'field')
    return { operation, path, expected: 'no such field (the contract does not have it)', got: 'present' };
  const leaf = u.path.split('.').pop()!.replace(/\[\]$/, '') || 'value';
  return { operation, path, expected: `a ${leaf} the contract knows`, got: shown(u.value) };
}

/** A zod path as the report writes it: `data[].status` (a list's items as `[]`, whichever item it was). */
export function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? '[]' : out ? `.${String(p)}` : String(p);
  return out || '(the body)';
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

/**
 * One JSON answer judged whole: its headers, its status (a 403 is a route this key may not read: skipped, and
 * verify goes on), its body against `schema`. The body when it came as the contract says, else undefined.
 */
export function judge(probe: Probe, operation: string, answer: RawAnswer, schema: ZodMiniType, status = 200): unknown {
  checkHeaders(probe, operation, answer);
  if (answer.status === 403) return void probe.skip(operation, `the key may not read it (403${codeOf(answer)})`);
  if (limited(answer))
    return void probe.skip(operation, `rate-limited (${answer.status}${codeOf(answer)} after waiting)`);
  probe.checked(operation);
  if (answer.status !== status) {
    probe.diverge({ operation, path: 'status', expected: String(status), got: `${answer.status}${codeOf(answer)}` });
    return undefined;
  }
  const body = bodyOf(probe, operation, answer);
  if (body === undefined) return undefined;
  checkShape(probe, operation, schema, body);
  return body;
}

/** A 429, or a 503 with Retry-After: the target asks to come back later (the contract's, not a divergence). */
export function limited(answer: Pick<RawAnswer, 'status' | 'headers'>): boolean {
  return answer.status === 429 || (answer.status === 503 && answer.headers['retry-after'] !== undefined);
}

type ErrorBody = { type?: unknown; code?: unknown; field?: unknown; message?: unknown };

/** An error answer judged whole (as `judge`), then its envelope's code (and type, when given) as the contract
 * gives them for this case. The envelope's error when it came. */
export function judgeError(
  probe: Probe,
  operation: string,
  answer: RawAnswer,
  s: Schemas,
  want: { status: number; code: string; type?: string },
): ErrorBody | undefined {
  const error = (judge(probe, operation, answer, s.ErrorEnvelope, want.status) as { error?: ErrorBody } | undefined)
    ?.error;
  if (!error) return undefined;
  if (want.type !== undefined && error.type !== want.type)
    probe.diverge({ operation, path: 'error.type', expected: shown(want.type), got: shown(error.type) });
  if (error.code !== want.code)
    probe.diverge({ operation, path: 'error.code', expected: shown(want.code), got: shown(error.code) });
  return error;
}

function codeOf(answer: RawAnswer): string {
  try {
    const code = (JSON.parse(answer.text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? ` ${code}` : '';
  } catch {
    return '';
  }
}
