// `orc scorecard <run>`: the bars (beauty, harmony, score/total, passed or not), then the pre-flight checks
// as a table, failures first. Piped, the same layout as plain text; --json, the scorecard document.
import { ApiError } from '../../api/index.js';
import type { Context } from '../context.js';
import { RefusedError } from '../../exit/errors.js';
import { scoreBars, sortedChecks } from '../../ui/scorecard.js';
import { loadStyle } from '../../ui/style.js';
import { renderTable } from '../../ui/table.js';
import type { ArgsOf } from '../define.js';
import type { scorecard as def } from './command.js';
import { pickRun } from '../pick.js';

export default async function show(ctx: Context, [given]: ArgsOf<typeof def>): Promise<number> {
  const runId = given ?? (await pickRun(ctx, 'any', 'scorecard')).id;
  const api = await ctx.api();
  let card;
  try {
    card = await api.runs.scorecard(runId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'scorecard_not_ready') {
      const run = await api.runs.retrieve(runId);
      throw new RefusedError(
        `run ${runId} has not been scored yet: it is ${run.status} at stage ${run.stage}`,
        `The scorecard comes when the run is scored (the run.scored event); \`orc watch ${runId}\` follows the run there.`,
      );
    }
    throw err;
  }
  if (ctx.io.json) return (ctx.io.writeJson(card), 0);
  const style = await loadStyle(ctx.io);
  const io = ctx.io;
  for (const line of scoreBars(style, card.score, card.passed)) io.out(line);
  io.out('');
  io.out(`${style.bold('Pre-flight')} ${card.preflight.passed ? style.green('passed') : style.red('failed')}`);
  const checks = sortedChecks(card.preflight.checks);
  if (checks.length === 0) return (io.out('  (no checks)'), 0);
  const mark = (s: string) => (s === 'fail' ? '✗ fail' : s === 'warn' ? '! warn' : s === 'pass' ? '✓ pass' : s);
  const paint = (s: string) =>
    s.endsWith('fail') ? style.red(s) : s.endsWith('warn') ? style.yellow(s) : s.endsWith('pass') ? style.green(s) : s;
  const rows = checks.map((c) => [mark(c.status), c.title, c.detail ?? '']);
  // The same aligned layout piped as at a terminal (no colour there): a scorecard is read, not parsed. Only a
  // terminal's width cuts DETAIL; piped, nothing is cut.
  const lines = renderTable([{ header: 'STATUS' }, { header: 'CHECK' }, { header: 'DETAIL', flexible: true }], rows, {
    tty: true,
    width: io.stdoutIsTTY ? io.columns : Number.MAX_SAFE_INTEGER,
    paint: (_r, c, text) => (c === 0 ? paint(text) : text),
  });
  for (const line of lines) io.out(line);
  return 0;
}
