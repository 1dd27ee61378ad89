// The scorecard for people: beauty, harmony and score as bars, passed or not; the pre-flight checks, failures
// first, each failing or warning one with the App Spec field it reads, what to change there and a value that
// passes; then what beauty and harmony are made of. `orc scorecard`, the gate prompt and the watch view draw
// it from here.
import type { Scorecard } from '../contract/schemas.js';
import { oneLine } from '../lib/sanitize.js';
import type { Style } from './style.js';
import { renderTable } from './table.js';
import { wrapWords } from './width.js';

type Component = NonNullable<Scorecard['components']>[number];

/** Where the lines go: `width` columns (a terminal's; piped, Infinity: nothing is cut), each line after `indent`. */
export interface Layout {
  width: number;
  indent?: string;
}

/** Under a check or a part, the lines that say how to fix it start here (under the CHECK column). */
const FIX_INDENT = ' '.repeat(8);

export function scoreBars(
  style: Style,
  score: { beauty: number; harmony: number; score: number; total: number },
  passed: boolean | undefined,
): string[] {
  const bar = (v: number, of: number) => {
    const w = 20;
    const f = Math.round((Math.max(0, Math.min(of, v)) / of) * w);
    const color = v / of >= 0.7 ? style.green : v / of >= 0.5 ? style.yellow : style.red;
    return `${color('█'.repeat(f))}${style.dim('░'.repeat(w - f))}`;
  };
  return [
    style.bold('Scorecard'),
    `  beauty   ${bar(score.beauty, 100)} ${score.beauty}`,
    `  harmony  ${bar(score.harmony, 100)} ${score.harmony}`,
    `  score    ${bar(score.score, score.total || 100)} ${score.score}/${score.total}  ${passed ? style.green('passed') : style.red('did not pass')}`,
  ];
}

/** The bars (unless `bars: false`: the view already drew them), the pre-flight checks, and (`components`)
 * the parts of beauty and harmony. */
export function scorecardLines(
  style: Style,
  card: Scorecard,
  o: Layout & { bars?: boolean; components?: boolean },
): string[] {
  const lines = o.bars === false ? [] : [...scoreBars(style, card.score, card.passed), ''];
  lines.push(...preflightLines(style, card.preflight, o));
  if (o.components && card.components?.length) lines.push(...componentLines(style, card, o));
  return lines;
}

/** The checks as a table, failures first; under each failing or warning one, its field, hint and suggestion. */
export function preflightLines(style: Style, preflight: Scorecard['preflight'], o: Layout): string[] {
  const indent = o.indent ?? '';
  const head = `${indent}${style.bold('Pre-flight')} ${preflight.passed ? style.green('passed') : style.red('failed')}`;
  const checks = sortedChecks(preflight.checks);
  if (checks.length === 0) return [head, `${indent}  (no checks)`];
  const rows = checks.map((c) => [mark(c.status), oneLine(c.title), oneLine(c.detail ?? '')]);
  const [header, ...table] = renderTable(
    [{ header: 'STATUS' }, { header: 'CHECK' }, { header: 'DETAIL', flexible: true }],
    rows,
    { tty: true, width: o.width - indent.length, paint: (_r, c, text) => (c === 0 ? paintStatus(style, text) : text) },
  );
  const lines = [head, `${indent}${header}`];
  checks.forEach((c, i) => {
    lines.push(`${indent}${table[i]}`);
    if (c.status !== 'pass') lines.push(...fixLines(style, c, o));
  });
  return lines;
}

/** Beauty and harmony, each with its parts: value (of 100), weight and detail; the most to gain first, and
 * under each part below 100, its field, hint and suggestion. */
export function componentLines(style: Style, card: Scorecard, o: Layout): string[] {
  const indent = o.indent ?? '';
  const groups = new Map<string, Component[]>();
  for (const c of card.components ?? []) {
    const of = oneLine(c.of ?? 'other');
    groups.set(of, [...(groups.get(of) ?? []), c]);
  }
  const lines: string[] = [];
  for (const [of, parts] of groups) {
    const score = (card.score as Record<string, unknown>)[of];
    const name = `${of.charAt(0).toUpperCase()}${of.slice(1)}`;
    lines.push('', `${indent}${style.bold(`${name}${typeof score === 'number' ? ` ${score}` : ''}`)}`);
    lines.push(
      `${indent}${style.dim('its parts: each a value out of 100, weighed by its weight; the most to gain first')}`,
    );
    const sorted = [...parts].sort((a, b) => shortfall(b) - shortfall(a));
    const rows = sorted.map((c) => [oneLine(c.name), String(c.value), String(c.weight), oneLine(c.detail ?? '')]);
    const [header, ...table] = renderTable(
      [{ header: 'PART' }, { header: 'VALUE' }, { header: 'WEIGHT' }, { header: 'DETAIL', flexible: true }],
      rows,
      { tty: true, width: o.width - indent.length, paint: (_r, c, t) => (c === 1 ? paintValue(style, t) : t) },
    );
    lines.push(`${indent}${header}`);
    sorted.forEach((c, i) => {
      lines.push(`${indent}${table[i]}`);
      if (c.value < 100) lines.push(...fixLines(style, c, o));
    });
  }
  return lines;
}

/** How much a part holds its score back: what it lacks of 100, by its weight. */
function shortfall(c: Component): number {
  return Math.max(0, 100 - c.value) * c.weight;
}

/** `field`, `hint` and `suggested` under a check or a part, as far as the service gave them. */
function fixLines(style: Style, c: { field?: string | null; hint?: string | null; suggestion?: unknown }, o: Layout) {
  const pairs: Array<[string, string]> = [];
  if (c.field) pairs.push(['field', oneLine(c.field)]);
  if (c.hint) pairs.push(['hint', oneLine(c.hint)]);
  if (c.suggestion !== undefined && c.suggestion !== null) pairs.push(['suggested', suggestionText(c.suggestion)]);
  // At a terminal the text wraps under itself (a hint cut short would hide what to do); piped, one line each.
  const lead = `${o.indent ?? ''}${FIX_INDENT}`;
  return pairs.flatMap(([label, text]) =>
    wrapWords(text, lead.length + 11, o.width).map((l, i) =>
      i === 0 ? `${lead}${style.dim(label.padEnd(11))}${l.trimStart()}` : l,
    ),
  );
}

const HEX = /^#[0-9a-f]{6}$/i;

/** A suggested value on one line, compactly: a palette as its codes, a list of screens as their titles. */
export function suggestionText(value: unknown): string {
  if (typeof value === 'string') return oneLine(JSON.stringify(value));
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string'))
      return value.every((v) => HEX.test(v)) ? value.join(' ') : value.map((v) => JSON.stringify(v)).join(', ');
    return oneLine(`${value.length} items: ${value.map(itemLabel).join(', ')}`);
  }
  return oneLine(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/** A list item by what people call it (its title, name or id), else as JSON. */
function itemLabel(item: unknown): string {
  if (item !== null && typeof item === 'object') {
    const o = item as Record<string, unknown>;
    const label = o.title ?? o.name ?? o.id;
    if (typeof label === 'string') return label;
  }
  return JSON.stringify(item);
}

function mark(status: string): string {
  return status === 'fail' ? '✗ fail' : status === 'warn' ? '! warn' : status === 'pass' ? '✓ pass' : oneLine(status);
}

function paintStatus(style: Style, s: string): string {
  return s.endsWith('fail')
    ? style.red(s)
    : s.endsWith('warn')
      ? style.yellow(s)
      : s.endsWith('pass')
        ? style.green(s)
        : s;
}

function paintValue(style: Style, s: string): string {
  const v = Number(s);
  return v >= 100 ? style.green(s) : v >= 50 ? style.yellow(s) : style.red(s);
}

/** Failures first, then warnings, then the rest; in the service's order within each. */
export function sortedChecks<T extends { status: string }>(checks: readonly T[]): T[] {
  return [...checks].sort((a, b) => rank(a.status) - rank(b.status));
}

function rank(status: string): number {
  return status === 'fail' ? 0 : status === 'warn' ? 1 : 2;
}
