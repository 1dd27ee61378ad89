// The scorecard for people: beauty, harmony and score as bars, passed or not, then the pre-flight checks,
// failures first. The watch view, the gate prompt and `orc scorecard` draw it from here.
import type { Scorecard } from '../contract/schemas.js';
import { oneLine } from '../lib/sanitize.js';
import type { Style } from './style.js';

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

/** The bars (unless `bars: false`: the view already drew them), then the pre-flight checks with failures first. */
export function scorecardLines(style: Style, card: Scorecard, opts: { bars?: boolean } = {}): string[] {
  const s = (v: unknown) => oneLine(String(v ?? '—'));
  const lines = opts.bars === false ? [] : scoreBars(style, card.score, card.passed);
  const checks = sortedChecks(card.preflight.checks);
  lines.push(`  ${style.bold('Pre-flight')} ${card.preflight.passed ? style.green('passed') : style.red('failed')}`);
  for (const c of checks) {
    const mark = c.status === 'fail' ? style.red('✗') : c.status === 'warn' ? style.yellow('!') : style.green('✓');
    lines.push(`    ${mark} ${s(c.title)}${c.detail ? style.dim(`  ${s(c.detail)}`) : ''}`);
  }
  return lines;
}

/** Failures first, then warnings, then the rest; in the service's order within each. */
export function sortedChecks<T extends { status: string }>(checks: readonly T[]): T[] {
  return [...checks].sort((a, b) => rank(a.status) - rank(b.status));
}

function rank(status: string): number {
  return status === 'fail' ? 0 : status === 'warn' ? 1 : 2;
}
