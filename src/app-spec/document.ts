// The App Spec as a document people edit: YAML (or JSON) with a comment header saying what is being
// edited and how to cancel, problems from the last try on top, and a JSON Schema beside it so editors can
// complete and check it. Read back, checked locally, and turned into the smallest merge patch.
import * as z from 'zod/mini';
import { MAX_BODY_BYTES, MAX_DEPTH, forbiddenKey, valueDepth } from '../contract/limits.js';
import { diffMergePatch } from '../lib/merge-patch.js';
import { describeIssue } from '../contract/issues.js';
import { AppSpecInput } from '../contract/schemas.js';
import { cjs } from '../lib/interop.js';

export type SpecFormat = 'yaml' | 'json';
export const SPEC_FORMATS = ['yaml', 'json'] as const;

export interface SpecProblem {
  /** A dotted path (`brand.palette.0`), when the problem has one. */
  field?: string | undefined;
  message: string;
}

export type Spec = Record<string, unknown>;

/** A field the editor opens at (`orc spec edit --field`, the gate prompt): what to change there, and a value
 * that would pass, both as the service said them (already sanitised where they entered orc). */
export interface FieldMark {
  path: string[];
  hints: string[];
  suggestion?: unknown;
}

const YAML_COMMENT = '#';
const JSON_COMMENT = '//';

/** The JSON Schema of a valid spec, from the same schema the sandbox checks with. */
export function specJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(AppSpecInput as unknown as z.ZodMiniType, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return {
    ...schema,
    title: 'App Spec',
    description: 'The App Spec of a run on the Run Orchestration Service (orc spec edit).',
  };
}

/** The spec as text in the format, nothing else (`orc spec get`). */
export async function formatSpec(spec: unknown, format: SpecFormat): Promise<string> {
  if (format === 'json') return `${JSON.stringify(spec, null, 2)}\n`;
  const { stringify } = cjs(await import('yaml'));
  return stringify(spec, { lineWidth: 0 });
}

/** What the editor opens: a header of comments, the problems of the last try, then the body. */
export function editorDocument(
  body: string,
  format: SpecFormat,
  o: { runId: string; schemaUrl: string; problems?: SpecProblem[]; mark?: FieldMark | undefined },
): string {
  const c = format === 'yaml' ? YAML_COMMENT : JSON_COMMENT;
  const lines: string[] = [];
  if (format === 'yaml') lines.push(`# yaml-language-server: $schema=${o.schemaUrl}`);
  lines.push(
    `${c} The App Spec of run ${o.runId} (orc spec edit).`,
    `${c} Lines starting with ${c} are ignored. Save and close the editor to send your changes: only what you`,
    `${c} changed is sent, as a JSON Merge Patch. To cancel, empty the file (or leave it unchanged) and close.`,
  );
  if (o.problems?.length) {
    lines.push(c, `${c} This edit was not sent:`);
    for (const p of o.problems) lines.push(`${c}   ✗ ${p.field ? `${p.field}: ` : ''}${p.message.replace(/\n/g, ' ')}`);
  }
  if (o.mark) {
    const where = format === 'yaml' ? ' (marked ↓ below)' : '';
    lines.push(c, `${c} To change: ${o.mark.path.join('.')}${where}`);
    if (format === 'json') for (const line of markText(o.mark)) lines.push(`${c}   ${line}`);
  }
  lines.push(c);
  return `${lines.join('\n')}\n${body}`;
}

/** The spec as the body of the editor document. JSON carries the schema in `$schema`, which editors read. A
 * YAML body carries the mark as a comment right above its field (or at the end, when the field is not there). */
export async function editorBody(spec: Spec, format: SpecFormat, schemaUrl: string, mark?: FieldMark): Promise<string> {
  if (format === 'json') return `${JSON.stringify({ $schema: schemaUrl, ...spec }, null, 2)}\n`;
  return mark ? markedYaml(spec, mark) : formatSpec(spec, 'yaml');
}

/** The hints, then the suggested value as JSON (which YAML reads too: one line to copy). */
function markText(mark: FieldMark): string[] {
  const lines = mark.hints.map((h) => h.replace(/\s+/g, ' '));
  return mark.suggestion === undefined ? lines : [...lines, `suggested: ${JSON.stringify(mark.suggestion)}`];
}

async function markedYaml(spec: Spec, mark: FieldMark): Promise<string> {
  const Y = cjs(await import('yaml'));
  const doc = new Y.Document(spec);
  const key = mark.path.at(-1)!;
  const parent = mark.path.length > 1 ? doc.getIn(mark.path.slice(0, -1), true) : doc.contents;
  const text = markText(mark);
  const here = [` ↓ ${mark.path.join('.')}: ${text[0] ?? 'change it here'}`, ...text.slice(1).map((l) => ` ${l}`)];
  const absent = [` ${mark.path.join('.')} is not set; add it: ${text[0] ?? ''}`, ...text.slice(1).map((l) => ` ${l}`)];
  const node = Y.isMap(parent)
    ? parent.items.find((p) => Y.isScalar(p.key) && String(p.key.value) === key)?.key
    : Y.isSeq(parent)
      ? parent.items[Number(key)]
      : undefined;
  if (Y.isNode(node)) node.commentBefore = here.join('\n');
  else doc.comment = absent.join('\n');
  return doc.toString({ lineWidth: 0 });
}

/** The body of a document: everything but the comment lines at its top. */
export function bodyOf(text: string, format: SpecFormat): string {
  const c = format === 'yaml' ? YAML_COMMENT : JSON_COMMENT;
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && lines[i]!.trimStart().startsWith(c)) i++;
  return lines.slice(i).join('\n');
}

function withoutJsonComments(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.trimStart().startsWith(JSON_COMMENT))
    .join('\n');
}

export type Parsed = { kind: 'empty' } | { kind: 'spec'; spec: Spec } | { kind: 'problem'; problem: SpecProblem };

/**
 * YAML the user wrote (an edited spec, a `--file patch.yaml`), read by the one set of rules: a key given twice is
 * an error, never a silent choice of one of them; an alias bomb (aliases of aliases, a billion laughs) stops as a
 * problem; the problem is one line (`not valid YAML: …`), without the library's excerpt of the text.
 */
export async function readYaml(text: string): Promise<{ value: unknown; empty: boolean } | { problem: string }> {
  const { parseDocument: parseYaml } = cjs(await import('yaml'));
  const doc = parseYaml(text, { uniqueKeys: true, prettyErrors: true });
  const oneLine = (message: string) => `not valid YAML: ${message.split('\n')[0]!.replace(/:$/, '')}`;
  const err = doc.errors[0];
  if (err) return { problem: oneLine(err.message) };
  if (doc.contents === null) return { value: null, empty: true };
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }), empty: false };
  } catch (e) {
    return { problem: oneLine((e as Error).message) };
  }
}

/**
 * Reads an edited document back; an empty document means "cancel". YAML comments are the YAML library's to
 * read: a `#` line inside a block scalar (`# Heading` in a description) is text, not a comment. JSON has no
 * comments, so orc's `//` lines are dropped; a JSON string cannot span lines, so no such line is ever text.
 */
export async function parseDocument(text: string, format: SpecFormat): Promise<Parsed> {
  const meaningful = format === 'json' ? withoutJsonComments(text) : text;
  if (meaningful.trim() === '') return { kind: 'empty' };
  // Far past what the service takes: refused before parsing costs anything.
  if (Buffer.byteLength(meaningful) > 4 * MAX_BODY_BYTES)
    return { kind: 'problem', problem: { message: tooBig(Buffer.byteLength(meaningful)) } };
  let value: unknown;
  if (format === 'json') {
    try {
      value = JSON.parse(meaningful);
    } catch (err) {
      return { kind: 'problem', problem: { message: `not valid JSON: ${(err as Error).message}` } };
    }
  } else {
    const read = await readYaml(meaningful);
    if ('problem' in read) return { kind: 'problem', problem: { message: read.problem } };
    if (read.empty) return { kind: 'empty' };
    value = read.value;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return {
      kind: 'problem',
      problem: { message: 'the App Spec must be a mapping of fields (name: …), not a list or a single value' },
    };
  const spec = { ...(value as Spec) };
  delete spec.$schema;
  const problem = checkSpec(spec);
  return problem ? { kind: 'problem', problem } : { kind: 'spec', spec: dropNulls(spec) as Spec };
}

/** What the service would refuse, found before anything is sent: nesting, forbidden keys, the schema. */
export function checkSpec(spec: unknown): SpecProblem | null {
  if (valueDepth(spec) > MAX_DEPTH) return { message: `the spec nests deeper than ${MAX_DEPTH} levels` };
  const size = Buffer.byteLength(JSON.stringify(spec) ?? '');
  if (size > MAX_BODY_BYTES) return { message: tooBig(size) };
  const bad = forbiddenKey(spec);
  if (bad) return { field: bad.path, message: `the key ${JSON.stringify(bad.key)} is not allowed` };
  const input = dropNulls(spec);
  const parsed = AppSpecInput.safeParse(input);
  if (parsed.success) return null;
  const { field, message } = describeIssue(parsed.error.issues, input);
  return { field: field || undefined, message };
}

function tooBig(bytes: number): string {
  return `the spec is ${(bytes / 1024 / 1024).toFixed(1)} MiB; the service takes at most 1 MiB`;
}

/** A null in an edited document (`tagline:` left empty) means the field goes. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    if (x !== null)
      Object.defineProperty(out, k, { value: dropNulls(x), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The smallest JSON Merge Patch from the spec as it was to the spec as edited: removed keys as null. */
export function specPatch(before: Spec, after: Spec): Spec {
  return diffMergePatch(before, after);
}

/** The dotted paths a patch touches (`name`, `brand.palette`), for messages. */
export function patchPaths(patch: Spec, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length)
      out.push(...patchPaths(v as Spec, path));
    else out.push(path);
  }
  return out;
}

/**
 * A line diff of two texts: lines as ' ', '-' or '+'. The common head and tail are matched first (an edit
 * changes a few lines); the rest by longest common subsequence while that table stays small, else shown
 * whole as removed then added, so a huge spec never costs quadratic memory.
 */
export function lineDiff(a: string, b: string): Array<{ op: ' ' | '-' | '+'; line: string }> {
  const x = a.replace(/\n$/, '').split('\n');
  const y = b.replace(/\n$/, '').split('\n');
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const same = (lines: string[]) => lines.map((line) => ({ op: ' ' as const, line }));
  const xs = x.slice(head, x.length - tail);
  const ys = y.slice(head, y.length - tail);
  return [...same(x.slice(0, head)), ...middleDiff(xs, ys), ...same(x.slice(x.length - tail))];
}

const MAX_LCS_CELLS = 4_000_000;

function middleDiff(x: string[], y: string[]): Array<{ op: ' ' | '-' | '+'; line: string }> {
  const n = x.length;
  const m = y.length;
  if ((n + 1) * (m + 1) > MAX_LCS_CELLS)
    return [...x.map((line) => ({ op: '-' as const, line })), ...y.map((line) => ({ op: '+' as const, line }))];
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: Array<{ op: ' ' | '-' | '+'; line: string }> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) out.push({ op: ' ', line: x[i++]! }), j++;
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ op: '-', line: x[i++]! });
    else out.push({ op: '+', line: y[j++]! });
  }
  while (i < n) out.push({ op: '-', line: x[i++]! });
  while (j < m) out.push({ op: '+', line: y[j++]! });
  return out;
}

/** The changed lines with up to `context` unchanged lines around them; `…` where lines were left out. */
export function diffHunks(
  diff: Array<{ op: ' ' | '-' | '+'; line: string }>,
  context = 2,
): Array<{ op: ' ' | '-' | '+' | '…'; line: string }> {
  const keep = new Array<boolean>(diff.length).fill(false);
  diff.forEach((d, i) => {
    if (d.op === ' ') return;
    for (let k = Math.max(0, i - context); k <= Math.min(diff.length - 1, i + context); k++) keep[k] = true;
  });
  const out: Array<{ op: ' ' | '-' | '+' | '…'; line: string }> = [];
  let skipped = false;
  diff.forEach((d, i) => {
    if (keep[i]) {
      if (skipped && out.length) out.push({ op: '…', line: '' });
      skipped = false;
      out.push(d);
    } else skipped = true;
  });
  return out;
}
