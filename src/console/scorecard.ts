// The final gate's scorecard: the score, what to change (each check that did not pass and each score component
// below 100, with the App Spec field it reads and the hint), and a suggestion applied to the spec as a merge
// patch once the person has seen what it changes.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { AppSpec, Run, Scorecard } from '../contract/schemas.js';
import { deepEqual, mergePatchAt, valueAt } from '../lib/merge-patch.js';
import { patchSpec } from './spec-editor.js';
import { clean } from './text.js';
import { Confirm, ErrorNote, Swatches, announce } from './ui.js';

/** Something the scorecard asks to change, from a check or a component. */
interface Fix {
  label: string;
  field: string | null;
  hint: string | null;
  suggestion: unknown;
}

type Check = Scorecard['preflight']['checks'][number];
type Component = NonNullable<Scorecard['components']>[number];

const ORDER: Record<string, number> = { fail: 0, warn: 1, pass: 2 };
const STATUS_TEXT: Record<string, string> = { fail: '✗ fail', warn: '! warn', pass: '✓ pass' };

const fixOf = (label: string, c: Check | Component): Fix => ({
  label,
  field: c.field ?? null,
  hint: c.hint ?? null,
  suggestion: c.suggestion ?? null,
});

/** `spec`: the run page's App Spec; an applied suggestion hands the saved spec to `onSpecSaved`; "Edit in the
 * App Spec" asks `onEditField` to open the spec editor at the field. */
export function ScorecardView({
  card,
  run,
  spec,
  onSpecSaved,
  onEditField,
}: {
  card: Scorecard | null;
  run: Run;
  spec: AppSpec | null;
  onSpecSaved: (spec: AppSpec) => void;
  onEditField: (field: string) => void;
}) {
  const apply = useApplySuggestion(run, spec, onSpecSaved);
  if (!card) return html`<p>Loading the scorecard…</p>`;
  const checks = [...card.preflight.checks].sort((a, b) => (ORDER[a.status] ?? 3) - (ORDER[b.status] ?? 3));
  const toChange = checks.filter((c) => c.status !== 'pass');
  const below = (card.components ?? []).filter((c) => c.value < 100);
  const action = (fix: Fix) => html`<${FixAction} fix=${fix} spec=${spec} onAsk=${apply.ask} onEdit=${onEditField} />`;
  return html`<div class="scorecard">
    <p class=${card.passed ? 'verdict ok' : 'verdict bad'}><strong>${card.passed ? '✓ The scorecard passed' : '✗ The scorecard did not pass'}</strong></p>
    <${Meters} card=${card} />
    ${toChange.length ? html`<${ChecksToChange} checks=${toChange} action=${action} />` : null}
    ${below.length ? html`<${ComponentsBelow} components=${below} action=${action} />` : null}
    ${card.passed ? null : html`<p class="help">The scorecard is judged again when the final gate is rejected: the run goes back to design with the App Spec as it stands then.</p>`}
    <${ErrorNote} error=${apply.error} />
    <details>
      <summary>All ${checks.length} pre-flight checks: ${card.preflight.passed ? 'passed' : 'did not pass'}</summary>
      <${PreflightTable} checks=${checks} />
    </details>
    <${SuggestionDialog} apply=${apply} spec=${spec} />
  </div>`;
}

function Meters({ card }: { card: Scorecard }) {
  // Below half is low, from three quarters high: the meter's own colours say it, and so do the numbers.
  const bar = (label: string, value: number, max: number) =>
    html`<div class="bar"><span class="bar-label" id=${`bar-${label}`}>${label}</span><meter min="0" max=${max} low=${max / 2} high=${(max * 3) / 4} optimum=${max} value=${value} aria-labelledby=${`bar-${label}`}></meter><span>${value} / ${max}</span></div>`;
  return html`${bar('Beauty', card.score.beauty, 100)}${bar('Harmony', card.score.harmony, 100)}${bar('Score', card.score.score, card.score.total)}`;
}

const status = (s: string) =>
  html`<span class=${`result-${ORDER[s] === undefined ? 'other' : s}`}>${STATUS_TEXT[s] ?? clean(s)}</span>`;
/** One thing to change: what it is, the App Spec field it reads, why, the hint, and the actions. */
function FixItem(props: {
  title: unknown;
  tone: string;
  field?: string | null;
  detail?: string | null;
  hint?: string | null;
  actions: unknown;
}) {
  return html`<li class=${`fix fix-${props.tone}`}>
    <p><strong>${props.title}</strong></p>
    ${props.field ? html`<p class="field-line">App Spec field <code>${clean(props.field)}</code></p>` : null}
    ${props.detail ? html`<p>${clean(props.detail)}</p>` : null}
    ${props.hint ? html`<p class="hint">Hint: ${clean(props.hint)}</p>` : null}
    ${props.actions}
  </li>`;
}

function ChecksToChange({ checks, action }: { checks: Check[]; action: (fix: Fix) => unknown }) {
  return html`<h3 id="to-change-h">What to change</h3>
    <ul class="fixes" aria-labelledby="to-change-h">
      ${checks.map((c) => {
        const title = clean(c.title || c.id);
        const tone = c.status === 'fail' ? 'fail' : 'warn';
        return html`<${FixItem} key=${c.id} title=${html`${status(c.status)} ${title}`} tone=${tone} field=${c.field} detail=${c.detail} hint=${c.hint} actions=${action(fixOf(title, c))} />`;
      })}
    </ul>`;
}

function ComponentsBelow({ components, action }: { components: Component[]; action: (fix: Fix) => unknown }) {
  return html`<h3 id="below-h">Score components below 100</h3>
    <ul class="fixes" aria-labelledby="below-h">
      ${components.map((c) => {
        const name = `${clean(c.name)}${c.of ? ` (${clean(c.of)})` : ''}`;
        const title = `${name}: ${c.value} / 100, weight ${c.weight}`;
        return html`<${FixItem} key=${`${c.of}:${c.name}`} title=${title} tone="part" field=${c.field} detail=${c.detail} hint=${c.hint} actions=${action(fixOf(name, c))} />`;
      })}
    </ul>`;
}

function PreflightTable({ checks }: { checks: Check[] }) {
  return html`<table class="preflight">
    <thead><tr><th scope="col">Check</th><th scope="col">Result</th><th scope="col">Field</th><th scope="col">Detail</th></tr></thead>
    <tbody>
      ${checks.map((c) => html`<tr key=${c.id}><th scope="row">${clean(c.title || c.id)}</th><td>${status(c.status)}</td><td>${c.field ? html`<code>${clean(c.field)}</code>` : '—'}</td><td>${clean(c.detail)}</td></tr>`)}
    </tbody>
  </table>`;
}

/** A fix's actions: apply its suggestion (asked first; or said to be in the App Spec already), and edit the App
 * Spec at its field. */
function FixAction(props: { fix: Fix; spec: AppSpec | null; onAsk: (fix: Fix) => void; onEdit: (f: string) => void }) {
  const { fix, spec } = props;
  const field = fix.field;
  if (!field || !spec) return null;
  const has = fix.suggestion !== null && deepEqual(valueAt(spec, field.split('.')), fix.suggestion);
  return html`<div class="fix-actions">
    ${has ? html`<p class="saved">✓ The App Spec has the suggestion</p>` : null}
    ${fix.suggestion !== null && !has ? html`<button type="button" aria-label=${`Apply the suggestion for ${fix.label}`} onClick=${() => props.onAsk(fix)}>Apply the suggestion…</button>` : null}
    <button type="button" aria-label=${`Edit ${clean(field)} in the App Spec, for ${fix.label}`} onClick=${() => props.onEdit(field)}>Edit ${clean(field)} in the App Spec</button>
  </div>`;
}

type Apply = ReturnType<typeof useApplySuggestion>;

/** Applying a suggestion: the fix being asked about, then the merge patch that sets it at its field. */
function useApplySuggestion(run: Run, spec: AppSpec | null, onSpecSaved: (spec: AppSpec) => void) {
  const [asking, setAsking] = useState<Fix | null>(null);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    const fix = asking;
    setAsking(null);
    if (!fix?.field || !spec) return;
    setError(null);
    try {
      onSpecSaved(await patchSpec(run, mergePatchAt(spec, fix.field.split('.'), fix.suggestion)));
      announce(`${fix.field} changed in the App Spec`);
    } catch (e) {
      setError(e);
    }
  };
  return { asking, error, ask: setAsking, dismiss: () => setAsking(null), confirm };
}

function SuggestionDialog({ apply, spec }: { apply: Apply; spec: AppSpec | null }) {
  const fix = apply.asking;
  const field = fix?.field ?? '';
  return html`<${Confirm} open=${fix !== null} title=${`Change ${clean(field)} in the App Spec?`} confirm="Apply to the App Spec" onConfirm=${apply.confirm} onCancel=${apply.dismiss}>
    ${
      fix
        ? html`<p>The suggestion for ${fix.label}.</p>
      <dl class="change">
        <div><dt>Now</dt><dd><${SpecValue} field=${field} value=${spec ? valueAt(spec, field.split('.')) : undefined} label="The palette now" /></dd></div>
        <div><dt>After</dt><dd><${SpecValue} field=${field} value=${fix.suggestion} label="The palette after" /></dd></div>
      </dl>`
        : null
    }
  </${Confirm}>`;
}

/** A value of the App Spec, as text: a palette as swatches too, a list as a list, anything else as JSON. */
function SpecValue({ field, value, label }: { field: string; value: unknown; label: string }) {
  if (value === undefined) return html`<span class="muted">not set</span>`;
  if (field === 'brand.palette') return html`<${Swatches} palette=${value} label=${label} />`;
  if (typeof value === 'string') return html`<span>“${clean(value)}”</span>`;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return html`<ul>${value.map((v) => html`<li>${clean(v)}</li>`)}</ul>`;
  return html`<pre class="code">${clean(JSON.stringify(value, null, 2))}</pre>`;
}
