// Deciding a gate at the prompt: show what is being decided, then approve, reject, edit or show the spec,
// leave it pending, or stop watching.
import { ApiError } from '../../api/errors.js';
import type { Api } from '../../api/index.js';
import type { AppSpec, Gate } from '../../contract/schemas.js';
import type { Context } from '../context.js';
import { exitCodeOf } from '../../exit/errors.js';
import { Problem } from '../../lib/problem.js';
import { cleanNotes, editText } from '../../ui/editor.js';
import { oneLine, sanitizeLine } from '../../lib/sanitize.js';
import type { Prompter } from '../../ui/prompt.js';
import { loadStyle, type Style } from '../../ui/style.js';
import { scorecardLines } from '../../ui/scorecard.js';
import { clockTime } from '../../ui/format.js';
import { displayWidth } from '../../ui/width.js';
import { doubtOf, fixesOf } from './final-doubt.js';
import { setPath, splitPath } from '../../app-spec/paths.js';

export type PromptOutcome = 'decided' | 'left' | 'stop';

type Choice =
  | 'approve'
  | 'reject'
  | 'reject-editor'
  | 'edit-spec'
  | `edit-at:${string}`
  | 'apply-suggested'
  | 'show-spec'
  | 'leave'
  | 'stop';

/** Where the final gate's failing checks point: the field, and a value that passes there (or null). */
type Fix = { field: string; suggestion: unknown };

/** How the question is asked: from a watch (whose view may have drawn the scorecard's bars already, and which
 * goes on after the question), or on its own (the inbox: nothing to keep watching or stop). */
export interface PromptPlace {
  watching: boolean;
  /** The watch view above has drawn the scorecard's bars, so the final gate's summary does not again. */
  scoresShown?: boolean;
}

export async function decideAtPrompt(
  ctx: Context,
  api: Api,
  runId: string,
  gate: string,
  signal: AbortSignal,
  place: PromptPlace,
): Promise<PromptOutcome> {
  const { watching, scoresShown = false } = place;
  const style = await loadStyle(ctx.io);
  const prompter = await ctx.prompter();
  // A final gate whose scorecard did not pass (or whose pre-flight failed): approving is not the default, and
  // each field a failing check names can be opened in the editor.
  const card = gate === 'final' ? await api.runs.scorecard(runId).catch(() => null) : null;
  const doubt = card ? doubtOf(card) : null;
  const fixes = card ? fixesOf(card) : [];
  return new GateQuestion(
    { ctx, api, runId, gate, signal, scoresShown, watching },
    style,
    prompter,
    doubt,
    fixes,
  ).ask();
}

interface Asked {
  ctx: Context;
  api: Api;
  runId: string;
  gate: string;
  signal: AbortSignal;
  scoresShown: boolean;
  watching: boolean;
}

/** One gate's question, asked until a choice decides it, leaves it, or stops the watch. */
class GateQuestion {
  private showSummary = true;
  // Where the cursor starts: the first choice at first; after a decision that failed or was cancelled, the
  // choice that was being made (never Approve: an Enter meant for something else must not approve).
  private cursor: Choice | undefined;

  constructor(
    private readonly q: Asked,
    private readonly style: Style,
    private readonly prompter: Prompter,
    private readonly doubt: string | null,
    private readonly fixes: Fix[],
  ) {}

  private say(line = ''): void {
    this.q.ctx.io.streams.stderr.write(`${line}\n`);
  }

  async ask(): Promise<PromptOutcome> {
    for (;;) {
      if (this.showSummary) await this.summarise();
      const choice = await this.choose();
      // Until it succeeds, a decision keeps the cursor; a failed approve goes to "leave it pending".
      this.cursor = choice === 'approve' ? 'leave' : choice;
      try {
        const outcome = await this.act(choice);
        if (outcome) return outcome;
      } catch (err) {
        const outcome = this.refused(err);
        if (outcome) return outcome;
      }
    }
  }

  private async summarise(): Promise<void> {
    const { api, runId, gate, ctx, scoresShown } = this.q;
    const opts = { columns: ctx.io.columns, scoresShown, now: ctx.clock.now() };
    for (const line of await gateSummary(api, runId, gate, this.style, opts)) this.say(line);
    if (this.doubt) this.say(this.style.yellow(`  Careful: ${this.doubt}.`));
    this.showSummary = false;
  }

  private choose(): Promise<Choice> {
    const { doubt } = this;
    const { watching } = this.q;
    const leave = {
      value: 'leave' as const,
      name: watching ? 'Leave it pending and keep watching' : 'Leave it pending',
    };
    return this.prompter.select<Choice>(
      `Gate ${this.q.gate}: your decision`,
      [
        ...(doubt ? [leave] : []),
        { value: 'approve', name: doubt ? 'Approve anyway (asks to confirm)' : 'Approve' },
        { value: 'reject', name: 'Reject, with notes written here' },
        { value: 'reject-editor', name: 'Reject, with notes written in your editor' },
        { value: 'edit-spec', name: 'Edit the App Spec in your editor, then decide' },
        ...this.fixChoices(),
        { value: 'show-spec', name: 'Show the whole App Spec' },
        ...(doubt ? [] : [leave]),
        ...(watching ? [{ value: 'stop' as const, name: 'Stop watching (the run waits at this gate)' }] : []),
      ],
      { signal: this.q.signal, ...(this.cursor ? { default: this.cursor } : {}) },
    );
  }

  /** An edit at each field a failing check names; the values suggested for them, all at once. */
  private fixChoices(): Array<{ value: Choice; name: string }> {
    const choices: Array<{ value: Choice; name: string }> = this.fixes.map((f) => ({
      value: `edit-at:${f.field}`,
      name: `Edit the spec at ${oneLine(f.field)}, then decide`,
    }));
    const suggested = this.fixes.filter((f) => f.suggestion !== null).map((f) => oneLine(f.field));
    if (suggested.length)
      choices.push({
        value: 'apply-suggested',
        name: `Apply the suggested values (${suggested.join(', ')}), then decide`,
      });
    return choices;
  }

  /** The choice carried out: how the question ends, or undefined to ask again. */
  private async act(choice: Choice): Promise<PromptOutcome | undefined> {
    const { api, runId, gate } = this.q;
    switch (choice) {
      case 'approve':
        return this.approve();
      case 'reject':
      case 'reject-editor':
        return this.reject(choice);
      case 'edit-spec':
        return this.editSpec();
      case 'show-spec':
        this.say(JSON.stringify(await api.spec.retrieve(runId), null, 2));
        this.cursor = undefined; // only looked: the menu starts from the top again
        return undefined;
      case 'leave':
        this.say(`Gate ${gate} stays pending; decide later with \`orc gate approve ${runId} ${gate}\`.`);
        return 'left';
      case 'stop':
        return 'stop';
      case 'apply-suggested':
        return this.applySuggested();
      default:
        return this.editSpec(choice.slice('edit-at:'.length));
    }
  }

  private async approve(): Promise<PromptOutcome | undefined> {
    const { api, runId, gate, signal } = this.q;
    const { doubt } = this;
    if (doubt && !(await this.prompter.confirm(`Approve the final gate although ${doubt}?`, false, { signal }))) {
      this.say('Not approved.');
      return undefined;
    }
    await api.gates.approve(runId, gate);
    this.say(this.style.green(`✓ approved gate ${gate}`));
    return 'decided';
  }

  private async reject(choice: 'reject' | 'reject-editor'): Promise<PromptOutcome | undefined> {
    const { ctx, api, runId, gate, signal } = this.q;
    const notes =
      choice === 'reject'
        ? (await this.prompter.input('Notes for the rejection (why, and what to change)', { signal })).trim()
        : cleanNotes(
            editText(
              ctx.env,
              `\n# Why is the ${gate} gate rejected? Lines starting with # are ignored.\n`,
              `${gate}-notes.md`,
            ),
          );
    if (!notes) {
      this.say(this.style.yellow('The notes are empty: nothing was sent. The gate is still pending.'));
      return undefined;
    }
    await api.gates.reject(runId, gate, notes);
    this.say(this.style.red(`✗ rejected gate ${gate}; the run goes back with your notes`));
    return 'decided';
  }

  /** The same edit as `orc spec edit` (`--field`, when `at`): YAML in the editor, checked here, the diff shown
   * and confirmed. */
  private async editSpec(at?: string): Promise<undefined> {
    const { ctx, api, runId, signal } = this.q;
    const { editInEditor, changedFields } = await import('../spec/editor-loop.js');
    const outcome = await editInEditor(ctx, api, runId, { format: 'yaml', yes: false, signal, at });
    if (outcome.kind === 'unchanged') this.say('No changes; nothing was sent.');
    else if (outcome.kind === 'declined') this.say(`Nothing was sent. Your edit is kept in ${outcome.kept}`);
    else this.edited(changedFields(outcome.patch));
    return undefined;
  }

  /** The values the failing checks suggest, set at their fields: the diff shown, and sent when confirmed. */
  private async applySuggested(): Promise<undefined> {
    const { ctx, api, runId, signal } = this.q;
    const { plannedChange, sendPatch, showDiff, changedFields } = await import('../spec/editor-loop.js');
    const plan = await plannedChange(api, runId, (spec) => {
      for (const f of this.fixes.filter((x) => x.suggestion !== null))
        setPath(spec, splitPath(f.field, 'suggested'), f.suggestion, `the value suggested for ${f.field}`);
      return spec;
    });
    if (Object.keys(plan.patch).length === 0) return void this.say('The spec holds these values already.');
    await showDiff(ctx, plan.before, plan.after, 'yaml');
    if (!(await this.prompter.confirm(`Send this change to run ${runId}?`, true, { signal })))
      return void this.say('Nothing was sent.');
    await sendPatch(api, runId, plan.patch);
    this.edited(changedFields(plan.patch));
    return undefined;
  }

  /** A spec changed at the gate. At the final gate the scorecard shown was made from the spec before: a
   * rejection runs the stages after the gate again on the spec as it is now, so the cursor goes there. */
  private edited(fields: string): void {
    this.say(this.style.green(`✓ spec updated: ${sanitizeLine(fields)}`));
    if (this.q.gate === 'final') {
      this.say('The scorecard above is of the spec as it was scored. Reject with notes to run the stages after');
      this.say('this gate again on the spec as it is now, with new screenshots, scores and pre-flight.');
      this.cursor = 'reject';
    } else this.showSummary = true;
  }

  /** A choice that failed: 'decided' when someone else decided first, undefined when it is said and asked
   * again; anything else ends the watch. */
  private refused(err: unknown): PromptOutcome | undefined {
    const { style } = this;
    if (err instanceof ApiError && err.code === 'gate_not_pending') {
      this.say(style.yellow(`Gate ${this.q.gate} was already decided elsewhere.`));
      return 'decided';
    }
    // A refused edit or decision is said, and the question asked again.
    if (err instanceof ApiError && err.status < 500) {
      this.say(style.yellow(`${err.field ? `${oneLine(err.field)}: ` : ''}${oneLine(err.message)}`));
      return undefined;
    }
    // Bad input, or a refusal told in orc's words (a locked spec): said, with its hint (where an edit is kept).
    if (err instanceof Problem && (exitCodeOf(err) === 2 || exitCodeOf(err) === 3)) {
      this.say(style.yellow(sanitizeLine(err.message)));
      if (err.hint) for (const line of err.hint.split('\n')) this.say(sanitizeLine(line));
      return undefined;
    }
    throw err;
  }
}

/** What is being decided: the idea (the spec's summary), the brand (palette, typeface, voice), or the final
 * scorecard; then the gate's earlier decisions, with their notes. */
export async function gateSummary(
  api: Api,
  runId: string,
  gate: string,
  style: Style,
  {
    columns = 80,
    scoresShown = false,
    now = Date.now(),
  }: { columns?: number; scoresShown?: boolean; now?: number } = {},
): Promise<string[]> {
  const [what, gates] = await Promise.all([
    whatIsDecided(api, runId, gate, style, columns, scoresShown),
    api.gates.list(runId),
  ]);
  const header = ['', style.bold(`Gate ${oneLine(gate)} of ${oneLine(runId)} awaits your decision`)];
  return [
    ...header,
    ...what,
    ...earlierDecisions(
      gates.find((g) => g.name === gate),
      style,
      now,
    ),
  ];
}

/** "rejected 14:02 — “the palette is too dark”", a line each, oldest first: what was asked before. */
function earlierDecisions(gate: Gate | undefined, style: Style, now: number): string[] {
  return (gate?.history ?? []).map((h, i) => {
    const what = h.decision === 'rejected' ? style.red(oneLine(h.decision)) : style.green(oneLine(h.decision));
    const notes = h.notes ? ` — “${oneLine(h.notes)}”` : '';
    return `${i === 0 ? '  before    ' : '            '}${what} ${clockTime(h.decided_at, now)}${notes}`;
  });
}

async function whatIsDecided(
  api: Api,
  runId: string,
  gate: string,
  style: Style,
  columns: number,
  scoresShown: boolean,
): Promise<string[]> {
  if (gate === 'final') return finalLines(api, runId, style, columns, scoresShown);
  const spec = await api.spec.retrieve(runId);
  return gate === 'brand' ? brandLines(spec, style, columns) : ideaLines(spec, style);
}

/** The scorecard. Failing checks come first (the prompt offers their fields); once none fails, a score that
 * still did not pass is explained by its parts, and the prompt offers theirs. */
async function finalLines(api: Api, runId: string, style: Style, columns: number, scoresShown: boolean) {
  const card = await api.runs.scorecard(runId);
  const failing = card.preflight.checks.some((c) => c.status === 'fail');
  const components = !card.passed && !failing;
  const lines = scorecardLines(style, card, { bars: !scoresShown, width: columns, indent: '  ', components });
  if (!card.passed && failing)
    lines.push(style.dim(`  What beauty and harmony are made of: orc scorecard ${oneLine(runId)}`));
  return lines;
}

// The spec's text came sanitised where it entered orc (parseServiceJson); a value is kept to one line here.
const s = (v: unknown) => oneLine(String(v ?? '—'));

function brandLines(spec: AppSpec, style: Style, columns: number): string[] {
  // Swatches a line at a time, as many as the terminal holds: a code never wraps in the middle.
  const items = (spec.brand?.palette ?? []).map((hex) => ({
    text: style.swatch(hex, oneLine(hex)),
    width: displayWidth(`     ${oneLine(hex)}`),
  }));
  const rows: string[][] = [[]];
  let used = 12;
  for (const item of items) {
    if (rows.at(-1)!.length && used + 1 + item.width > columns) {
      rows.push([]);
      used = 12;
    }
    used += (rows.at(-1)!.length ? 1 : 0) + item.width;
    rows.at(-1)!.push(item.text);
  }
  const lines = rows.map((r, i) => `${i === 0 ? '  palette   ' : '            '}${r.join(' ') || '—'}`);
  lines.push(`  typeface  ${s(spec.brand?.typeface)}`);
  lines.push(`  voice     ${s(spec.brand?.voice)}`);
  return lines;
}

function ideaLines(spec: AppSpec, style: Style): string[] {
  return [
    `  name          ${style.bold(s(spec.name))}`,
    `  tagline       ${s(spec.tagline)}`,
    `  audience      ${s(spec.audience)}`,
    `  monetization  ${s(spec.monetization)}`,
    `  features      ${(spec.features ?? []).map(s).join(', ') || '—'}`,
  ];
}
