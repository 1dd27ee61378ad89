// The App Spec: read always, edited while the service allows it (before the final gate is approved). A
// form for the common fields and a JSON editor for all of it; either sends a JSON Merge Patch of the
// difference, and the service's validation errors are shown at the field they name.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { MONETIZATION_VALUES } from '../contract/events.js';
import type { AppSpec, Run } from '../contract/schemas.js';
import { diffMergePatch, valueAt } from '../lib/merge-patch.js';
import { ApiError, api } from './api.js';
import { clean } from './text.js';
import { ErrorNote, Swatches, announce } from './ui.js';

interface FieldDef {
  key: string;
  label: string;
  kind: 'text' | 'textarea' | 'monetization' | 'platforms' | 'list' | 'palette';
  /** Where in the spec: a dotted path. */
  path: string;
}

const FIELDS: FieldDef[] = [
  { key: 'name', label: 'Name', kind: 'text', path: 'name' },
  { key: 'tagline', label: 'Tagline', kind: 'text', path: 'tagline' },
  { key: 'description', label: 'Description', kind: 'textarea', path: 'description' },
  { key: 'audience', label: 'Audience', kind: 'text', path: 'audience' },
  { key: 'category', label: 'Category', kind: 'text', path: 'category' },
  { key: 'monetization', label: 'Monetization', kind: 'monetization', path: 'monetization' },
  { key: 'platforms', label: 'Platforms', kind: 'platforms', path: 'platforms' },
  { key: 'features', label: 'Features (one a line)', kind: 'list', path: 'features' },
  { key: 'palette', label: 'Palette (colours like #1A2B3C, one a line)', kind: 'palette', path: 'brand.palette' },
  { key: 'typeface', label: 'Typeface', kind: 'text', path: 'brand.typeface' },
  { key: 'voice', label: 'Voice', kind: 'text', path: 'brand.voice' },
];

const get = (spec: AppSpec, path: string): unknown => valueAt(spec, path.split('.'));

function set(spec: AppSpec, path: string, value: unknown): AppSpec {
  const keys = path.split('.');
  const out = structuredClone(spec);
  let v: any = out;
  for (const k of keys.slice(0, -1)) v = v[k] && typeof v[k] === 'object' ? v[k] : (v[k] = {});
  if (value === undefined) delete v[keys.at(-1)!];
  else v[keys.at(-1)!] = value;
  return out;
}

/** The field a service error names (`brand.palette.0` is the palette's). */
function fieldOf(path: string | null): FieldDef | undefined {
  if (!path) return undefined;
  return FIELDS.find((f) => path === f.path || path.startsWith(`${f.path}.`));
}

/** A request from elsewhere on the page (a scorecard's check) to edit the App Spec at a dotted field; `n`
 * tells one request from the next. */
export interface EditAt {
  field: string;
  n: number;
}

/** `spec`: the run page's App Spec (one for the page); a save hands the saved one to `onSaved`. */
export function SpecEditor({
  run,
  spec,
  loadError,
  onSaved,
  editAt = null,
}: {
  run: Run;
  spec: AppSpec | null;
  loadError: unknown;
  onSaved: (spec: AppSpec) => void;
  editAt?: EditAt | null;
}) {
  const edit = useSpecEdit(run, spec, onSaved);
  const editable = run.status === 'running' || run.status === 'awaiting_approval';
  useEffect(() => {
    if (!editAt || !editable || !spec) return;
    const inForm = fieldOf(editAt.field) !== undefined;
    if (!edit.editing) edit.start(inForm ? 'form' : 'json');
    else if (!inForm) edit.switchMode('json');
  }, [editAt?.n]);
  return html`<section aria-labelledby="spec-h">
    <h2 id="spec-h">App Spec</h2>
    <${ErrorNote} error=${loadError} />
    ${!spec ? html`<p>Loading…</p>` : null}
    ${
      spec && !edit.editing
        ? html`<div>
          ${edit.saved ? html`<p class="saved" role="status">✓ App Spec saved</p>` : null}
          <${SpecView} spec=${spec} />
          ${editable ? html`<button type="button" onClick=${() => edit.start()}>Edit App Spec</button>` : html`<p class="muted">The App Spec can no longer be changed (${clean(run.status)}).</p>`}
        </div>`
        : null
    }
    ${spec && edit.editing ? html`<${SpecForm} edit=${edit} editAt=${editAt} />` : null}
  </section>`;
}

type SpecEdit = ReturnType<typeof useSpecEdit>;

/** An edit of the App Spec: started from the page's spec, drafted in the form or as JSON, saved as a merge
 * patch of the difference. */
function useSpecEdit(run: Run, spec: AppSpec | null, onSaved: (spec: AppSpec) => void) {
  // What the edit started from: the patch is the difference from it, even if the page's spec moves meanwhile.
  const [base0, setBase0] = useState<AppSpec | null>(null);
  const [saved, setSaved] = useState(false);
  const [draft, setDraft] = useState<AppSpec | null>(null);
  const [text, setText] = useState('');
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [saving, setSaving] = useState(false);
  const start = (as: 'form' | 'json' = mode) => {
    setMode(as);
    setBase0(spec);
    setSaved(false);
    setDraft(spec);
    setText(JSON.stringify(spec, null, 2));
    setError(null);
    setEditing(true);
  };
  const switchMode = (next: 'form' | 'json') => {
    if (next === mode) return;
    const parsed = next === 'json' ? null : parsedJson(text);
    if (parsed instanceof Error) return setError(parsed);
    if (next === 'json') setText(JSON.stringify(draft, null, 2));
    else setDraft(parsed as AppSpec);
    setError(null);
    setMode(next);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    const patch = editedPatch(base0!, mode === 'json' ? parsedJson(text) : draft!);
    if (patch instanceof Error) return setError(patch);
    if (Object.keys(patch).length === 0) {
      setEditing(false);
      announce('nothing changed');
      return;
    }
    setSaving(true);
    try {
      onSaved(await patchSpec(run, patch));
      setEditing(false);
      setError(null);
      setSaved(true);
      announce('App Spec saved');
    } catch (err) {
      setError(err as Error);
      const f = err instanceof ApiError ? fieldOf(err.field) : undefined;
      if (f && mode === 'form') document.getElementById(`spec-${f.key}`)?.focus();
    } finally {
      setSaving(false);
    }
  };
  const discard = () => (setEditing(false), setError(null));
  return { saved, draft, setDraft, text, setText, mode, editing, error, saving, start, switchMode, save, discard };
}

/** Changes the run's App Spec by a JSON Merge Patch; the spec as it then stands. (The editor's save and the
 * scorecard's suggestions both go through here.) */
export const patchSpec = (run: Run, patch: unknown) =>
  api<AppSpec>('PATCH', `/v1/runs/${encodeURIComponent(run.id)}/spec`, patch, 'application/merge-patch+json');

/** The JSON editor's text parsed, or why it does not parse. */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    return new Error(`The JSON does not parse: ${(e as Error).message}`);
  }
}

/** The edited spec's difference from where the edit started, as a merge patch; or why there is none. */
function editedPatch(base0: AppSpec, edited: unknown): Record<string, unknown> | Error {
  if (edited instanceof Error) return edited;
  if (edited === null || typeof edited !== 'object' || Array.isArray(edited))
    return new Error('The App Spec must be a JSON object.');
  return diffMergePatch(base0, edited as AppSpec);
}

/** Focus where an edit was asked for: the form's control for the field, or the JSON editor at its key. False
 * while that is not on the page yet. */
function focusAt(field: string, mode: 'form' | 'json'): boolean {
  const def = fieldOf(field);
  if (mode === 'form') {
    const el = def && document.getElementById(`spec-${def.key}`);
    if (!el) return false;
    el.focus();
    el.scrollIntoView({ block: 'center' });
    return true;
  }
  const box = document.getElementById('spec-json') as HTMLTextAreaElement | null;
  if (!box) return false;
  // Each key of the path after the one before it: `brand.palette` selects brand's "palette".
  let at = 0;
  let key = '';
  for (const k of field.split('.')) {
    key = JSON.stringify(k);
    const i = box.value.indexOf(key, at);
    if (i >= 0) at = i;
  }
  box.focus();
  box.setSelectionRange(at, at + key.length);
  box.scrollIntoView({ block: 'center' });
  return true;
}

function SpecForm({ edit, editAt }: { edit: SpecEdit; editAt: EditAt | null }) {
  const { mode, draft, text, error, saving } = edit;
  const focused = useRef(0);
  useEffect(() => {
    if (editAt && editAt.n !== focused.current && focusAt(editAt.field, mode)) focused.current = editAt.n;
  }, [editAt?.n, mode]);
  const apiErr = error instanceof ApiError ? error : null;
  const errField = mode === 'form' ? fieldOf(apiErr?.field ?? null) : undefined;
  return html`<form class="spec-form" onSubmit=${edit.save} novalidate>
          <div class="tabs" role="group" aria-label="Edit as">
            <button type="button" aria-pressed=${mode === 'form'} onClick=${() => edit.switchMode('form')}>Form</button>
            <button type="button" aria-pressed=${mode === 'json'} onClick=${() => edit.switchMode('json')}>JSON</button>
          </div>
          ${mode === 'form' ? FIELDS.map((f) => html`<${Field} key=${f.key} def=${f} spec=${draft!} error=${errField === f ? apiErr!.message : null} onChange=${(v: unknown) => edit.setDraft(set(draft!, f.path, v))} />`) : null}
          ${
            mode === 'json'
              ? html`<label for="spec-json">App Spec (JSON)</label>
                <textarea id="spec-json" class="code" rows="18" spellcheck="false" value=${text} aria-invalid=${error ? 'true' : undefined} aria-describedby=${error ? 'spec-error' : undefined} onInput=${(e: Event) => edit.setText((e.target as HTMLTextAreaElement).value)}></textarea>`
              : null
          }
          ${error && !errField ? html`<p id="spec-error" class="field-error" role="alert">${apiErr?.field ? html`<code>${clean(apiErr.field)}</code>: ` : ''}${clean(error.message)}</p>` : null}
          <div class="actions">
            <button type="submit" class="primary" disabled=${saving}>Save App Spec</button>
            <button type="button" onClick=${edit.discard}>Discard changes</button>
          </div>
        </form>`;
}

function Field({
  def,
  spec,
  error,
  onChange,
}: {
  def: FieldDef;
  spec: AppSpec;
  error: string | null;
  onChange: (v: unknown) => void;
}) {
  const id = `spec-${def.key}`;
  const value = get(spec, def.path);
  const described = error ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-error` } : {};
  const errorLine = error ? html`<p id=${`${id}-error`} class="field-error" role="alert">${clean(error)}</p>` : null;
  const str = (e: Event) => (e.target as HTMLInputElement).value;
  const lines = (e: Event) => {
    const v = str(e)
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    return v;
  };
  if (def.kind === 'platforms') {
    const current = Array.isArray(value) ? (value as string[]) : [];
    const toggle = (p: string, on: boolean) =>
      onChange(on ? [...new Set([...current, p])] : current.filter((x) => x !== p));
    return html`<fieldset id=${id} tabindex="-1" ...${described}><legend>${def.label}</legend>
      ${['ios', 'android'].map((p) => html`<label class="check"><input type="checkbox" checked=${current.includes(p)} onChange=${(e: Event) => toggle(p, (e.target as HTMLInputElement).checked)} /> ${p === 'ios' ? 'iOS' : 'Android'}</label>`)}
      ${errorLine}</fieldset>`;
  }
  if (def.kind === 'monetization') {
    const v = typeof value === 'string' ? value : '';
    const options = MONETIZATION_VALUES.includes(v as never) || !v ? MONETIZATION_VALUES : [v, ...MONETIZATION_VALUES];
    return html`<div class="field"><label for=${id}>${def.label}</label>
      <select id=${id} value=${v} onChange=${(e: Event) => onChange(str(e) || undefined)} ...${described}>
        ${!v ? html`<option value="">—</option>` : null}
        ${options.map((o) => html`<option value=${o}>${clean(o.replaceAll('_', ' '))}</option>`)}
      </select>${errorLine}</div>`;
  }
  if (def.kind === 'list' || def.kind === 'palette') {
    const v = Array.isArray(value) ? value.map(String).join('\n') : '';
    return html`<div class="field"><label for=${id}>${def.label}</label>
      <textarea id=${id} rows="4" value=${v} onInput=${(e: Event) => onChange(lines(e))} ...${described}></textarea>
      ${def.kind === 'palette' ? html`<${Swatches} palette=${value} />` : null}${errorLine}</div>`;
  }
  const v = value === undefined || value === null ? '' : String(value);
  const input =
    def.kind === 'textarea'
      ? html`<textarea id=${id} rows="3" value=${v} onInput=${(e: Event) => onChange(str(e) || undefined)} ...${described}></textarea>`
      : html`<input id=${id} type="text" value=${v} onInput=${(e: Event) => onChange(str(e) || undefined)} ...${described} />`;
  return html`<div class="field"><label for=${id}>${def.label}</label>${input}${errorLine}</div>`;
}

function SpecView({ spec }: { spec: AppSpec }) {
  const rows = FIELDS.map((f) => [f.label.replace(/ \(.*\)$/, ''), get(spec, f.path), f] as const).filter(
    ([, v]) => v !== undefined && v !== null,
  );
  return html`<dl class="summary">
    ${rows.map(([label, v, f]) => html`<div><dt>${label}</dt><dd>${f.kind === 'palette' ? html`<${Swatches} palette=${v} />` : Array.isArray(v) ? v.map(clean).join(', ') : clean(typeof v === 'object' ? JSON.stringify(v) : v)}</dd></div>`)}
  </dl>
  <details><summary>The whole App Spec as JSON</summary><pre class="code">${clean(JSON.stringify(spec, null, 2))}</pre></details>`;
}
