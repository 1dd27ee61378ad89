// Editing a run's App Spec, the way `kubectl edit` does it: the spec opens in the user's editor, the edit
// is checked here before anything is sent, only what changed is sent (a JSON Merge Patch), and no edit is
// ever lost: on any failure the edited file stays and its path is printed. `orc spec edit` and the gate
// prompt's "edit the spec" both come here.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ApiError, type Api } from '../../api/index.js';
import { TERMINAL_STATUSES } from '../../contract/events.js';
import type { Context } from '../context.js';
import { exitCodeOf, OrcError, RefusedError, RetoldError, UsageError } from '../../exit/errors.js';
import { Problem } from '../../lib/problem.js';
import { editorCommand, openEditor } from '../../ui/editor.js';
import { sanitizeLine } from '../../lib/sanitize.js';
import { loadStyle } from '../../ui/style.js';
import { sortedChecks } from '../../ui/scorecard.js';
import { splitPath } from '../../app-spec/paths.js';
import {
  bodyOf,
  checkSpec,
  diffHunks,
  editorBody,
  editorDocument,
  formatSpec,
  lineDiff,
  parseDocument,
  patchPaths,
  specJsonSchema,
  specPatch,
  type FieldMark,
  type SpecProblem,
  type Spec,
  type SpecFormat,
} from '../../app-spec/document.js';

export type EditOutcome =
  | { kind: 'updated'; spec: Spec; patch: Spec }
  | { kind: 'unchanged' }
  | { kind: 'declined'; kept: string };

/** Why the spec of this run can no longer change, or null while it can (CONTRACT.md, App Spec). */
export async function lockReason(api: Api, runId: string): Promise<string | null> {
  const [run, gates] = await Promise.all([api.runs.retrieve(runId), api.gates.list(runId)]);
  if (TERMINAL_STATUSES.has(run.status)) return `the run is ${run.status}`;
  if (gates.find((g) => g.name === 'final')?.state === 'approved')
    return 'its final gate was approved: the app is being built for release';
  return null;
}

export async function assertEditable(api: Api, runId: string): Promise<void> {
  const why = await lockReason(api, runId);
  if (why) throw new RefusedError(`the spec of run ${runId} is locked: ${why}; nothing was changed`);
}

/** A refusal of the service, told as the issue of the field it names (exit 3). */
export function refusal(err: ApiError, runId: string): RetoldError {
  if (err.code === 'spec_locked') return new RefusedError(`the spec of run ${runId} is locked (${err.message})`);
  return new RefusedError(`the service refused the spec${err.field ? ` at ${err.field}` : ''}: ${err.message}`);
}

/** A change orc makes to a copy of the spec (--set, --unset, --file; the gate's suggested values): the spec as
 * it stands, as changed, and the merge patch between them. A change that leaves an invalid spec stops here. */
export async function plannedChange(
  api: Api,
  runId: string,
  change: (copy: Spec) => Spec,
): Promise<{ before: Spec; after: Spec; patch: Spec }> {
  await assertEditable(api, runId);
  const before = (await api.spec.retrieve(runId)) as Spec;
  const after = changedSpec(before, change);
  return { before, after, patch: specPatch(before, after) };
}

/** The change made to a copy of `before`; a change that leaves an invalid spec stops here. */
export function changedSpec(before: Spec, change: (copy: Spec) => Spec): Spec {
  const after = change(JSON.parse(JSON.stringify(before)) as Spec);
  const problem = checkSpec(after);
  if (problem) throw new UsageError(`the spec would not be valid: ${describe(problem)}; nothing was sent`);
  return after;
}

/** The patch sent: the spec as updated; a refusal of the service told as the issue of the field it names. */
export async function sendPatch(api: Api, runId: string, patch: Spec): Promise<Spec> {
  try {
    return (await api.spec.update(runId, patch)) as Spec;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 400 || err.code === 'spec_locked')) throw refusal(err, runId);
    throw err;
  }
}

export interface EditOptions {
  format: SpecFormat;
  /** Send without showing the diff and asking. */
  yes: boolean;
  /** Ends the confirmation question (the gate prompt: a gate decided elsewhere). */
  signal?: AbortSignal;
  /** A dotted field to open at: marked in the document with what the scorecard says of it. */
  at?: string | undefined;
}

/** Opens the editor on the spec until the edit is valid and sent, unchanged, or given up. */
export async function editInEditor(ctx: Context, api: Api, runId: string, o: EditOptions): Promise<EditOutcome> {
  const atTerminal = ctx.io.canPrompt;
  if (!atTerminal && !editorCommand(ctx.env, false)) {
    throw new UsageError(
      'no editor to open: set VISUAL or EDITOR, or change the spec with --set, --unset or --file',
      'Example: orc spec edit run_8fJ2kQ --set name=Stride',
    );
  }
  await assertEditable(api, runId);
  const before = (await api.spec.retrieve(runId)) as Spec;
  const dir = mkdtempSync(join(tmpdir(), 'orc-spec-'));
  const schemaFile = join(dir, 'app-spec.schema.json');
  writeFileSync(schemaFile, `${JSON.stringify(specJsonSchema(), null, 2)}\n`, { mode: 0o600 });
  const schemaUrl = pathToFileURL(schemaFile).href;
  const mark = o.at === undefined ? undefined : await fieldMark(api, runId, o.at);
  const body = await editorBody(before, o.format, schemaUrl, mark);
  return new SpecEdit(ctx, api, runId, o, before, dir, schemaUrl, body, mark).run();
}

/** What the scorecard says of a field: the hints of its failing and warning checks (failures first) and of
 * its parts below 100, and the first value suggested for it; only the field before the run is scored. */
export async function fieldMark(api: Api, runId: string, field: string): Promise<FieldMark> {
  const mark: FieldMark = { path: splitPath(field, '--field'), hints: [] };
  const card = await api.runs.scorecard(runId).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  });
  const checks = sortedChecks(card?.preflight.checks ?? []).filter((c) => c.status !== 'pass');
  const parts = (card?.components ?? []).filter((c) => c.value < 100);
  for (const c of [...checks, ...parts]) {
    if (c.field !== field) continue;
    if (c.hint && !mark.hints.includes(c.hint)) mark.hints.push(c.hint);
    if (mark.suggestion === undefined && c.suggestion !== undefined && c.suggestion !== null)
      mark.suggestion = c.suggestion;
  }
  return mark;
}

/** One edit of a spec: the file in its folder, and what the last try left to say on the next. */
class SpecEdit {
  private readonly atTerminal: boolean;
  private readonly file: string;
  private problems: SpecProblem[] = [];
  // What stopped the last try; saving the file again unchanged gives up with it (kubectl does the same).
  private lastError: OrcError | null = null;
  private edited = false;

  constructor(
    private readonly ctx: Context,
    private readonly api: Api,
    private readonly runId: string,
    private readonly o: EditOptions,
    private readonly before: Spec,
    private readonly dir: string,
    private readonly schemaUrl: string,
    private body: string,
    private readonly mark: FieldMark | undefined,
  ) {
    this.atTerminal = ctx.io.canPrompt;
    this.file = join(dir, `${runId}.spec.${o.format === 'yaml' ? 'yaml' : 'jsonc'}`);
  }

  async run(): Promise<EditOutcome> {
    try {
      for (;;) {
        const outcome = await this.attempt();
        if (outcome) return outcome;
      }
    } catch (err) {
      throw this.kept(err);
    }
  }

  /** The editor opened once: an outcome, or undefined to open it again with the problems on top. */
  private async attempt(): Promise<EditOutcome | undefined> {
    const { o, runId, schemaUrl, problems } = this;
    const shown = editorDocument(this.body, o.format, { runId, schemaUrl, problems, mark: this.mark });
    writeFileSync(this.file, shown, { mode: 0o600 });
    openEditor(this.ctx.env, this.file);
    const text = readFileSync(this.file, 'utf8');
    if (this.lastError && text === shown) throw this.lastError;
    this.body = bodyOf(text, o.format);
    const parsed = await parseDocument(text, o.format);
    if (parsed.kind === 'empty') return this.done({ kind: 'unchanged' });
    if (parsed.kind === 'problem') {
      this.edited = true;
      this.lastError = new UsageError(`the edited spec is not valid: ${describe(parsed.problem)}; nothing was sent`);
      if (!this.atTerminal) throw this.lastError;
      this.problems = [parsed.problem];
      return undefined;
    }
    const patch = specPatch(this.before, parsed.spec);
    if (Object.keys(patch).length === 0) return this.done({ kind: 'unchanged' });
    this.edited = true;
    if (this.atTerminal && !o.yes && !(await this.confirmed(parsed.spec))) return { kind: 'declined', kept: this.file };
    return this.send(patch);
  }

  /** The diff shown, and the change confirmed. */
  private async confirmed(after: Spec): Promise<boolean> {
    await showDiff(this.ctx, this.before, after, this.o.format);
    const prompter = await this.ctx.prompter();
    const signal = this.o.signal;
    return prompter.confirm(`Send this change to run ${this.runId}?`, true, signal ? { signal } : undefined);
  }

  private async send(patch: Spec): Promise<EditOutcome | undefined> {
    try {
      const spec = (await this.api.spec.update(this.runId, patch)) as Spec;
      return this.done({ kind: 'updated', spec, patch });
    } catch (err) {
      // A field the service refuses: at a terminal the editor opens again with the reason on top.
      if (err instanceof ApiError && err.status === 400 && this.atTerminal) {
        this.problems = [{ field: err.field, message: err.message }];
        this.lastError = refusal(err, this.runId);
        return undefined;
      }
      if (err instanceof ApiError && (err.status === 400 || err.code === 'spec_locked')) throw refusal(err, this.runId);
      throw err;
    }
  }

  /** The edit given up: nothing made, the folder goes; an edit is never lost: the file stays, and the error
   * says where. */
  private kept(err: unknown): unknown {
    if (!this.edited) {
      rmSync(this.dir, { recursive: true, force: true });
      return err;
    }
    const where = `Your edit is kept in ${this.file}`;
    if (err instanceof Problem)
      return new RetoldError(err.message, exitCodeOf(err), err.hint ? `${err.hint}\n${where}` : where);
    this.ctx.io.info(`orc: ${where}`);
    return err;
  }

  private done(outcome: EditOutcome): EditOutcome {
    rmSync(this.dir, { recursive: true, force: true });
    return outcome;
  }
}

/** The change as a diff of the two documents, coloured at a terminal, on stderr. */
export async function showDiff(ctx: Context, before: Spec, after: Spec, format: SpecFormat): Promise<void> {
  const style = await loadStyle(ctx.io);
  const [a, b] = await Promise.all([formatSpec(before, format), formatSpec(after, format)]);
  for (const d of diffHunks(lineDiff(a, b))) {
    const line = sanitizeLine(d.line);
    ctx.io.info(
      d.op === '-'
        ? style.red(`- ${line}`)
        : d.op === '+'
          ? style.green(`+ ${line}`)
          : d.op === '…'
            ? style.dim('  …')
            : style.dim(`  ${line}`),
    );
  }
}

export function describe(p: SpecProblem): string {
  return p.field ? `${p.field}: ${p.message}` : p.message;
}

/** "name, brand.palette" */
export function changedFields(patch: Spec): string {
  return patchPaths(patch).join(', ');
}
