// The pending gate: what is being decided (the idea, the brand, the scorecard), what was decided there before,
// and the decision. Empty notes never reject (as in the CLI); approving a final gate whose scorecard did not pass asks first.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AppSpec, Gate, Run, Scorecard } from '../contract/schemas.js';
import { ApiError, api } from './api.js';
import { clean } from './text.js';
import { ScorecardView } from './scorecard.js';
import { Confirm, ErrorNote, Swatches, Time, announce } from './ui.js';

/** `spec`: the run page's App Spec (one for the page), null while it loads; a change made here (a suggestion
 * applied) goes to `onSpecSaved`, and a wish to edit it at a field to `onEditField`. */
export function GatePanel({
  run,
  gate,
  spec,
  onDecided,
  onSpecSaved,
  onEditField,
}: {
  run: Run;
  gate: Gate;
  spec: AppSpec | null;
  onDecided: () => void;
  onSpecSaved: (spec: AppSpec) => void;
  onEditField: (field: string) => void;
}) {
  const scorecard = useFinalScorecard(run, gate);
  const [notes, setNotes] = useState('');
  const [notesError, setNotesError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const notesRef = useRef<HTMLTextAreaElement>(null);
  const refuseNotes = (message: string) => {
    setNotesError(message);
    notesRef.current?.focus();
  };
  const decision = useDecision(run, gate, notes, refuseNotes, onDecided);
  const { busy, error } = decision;
  const decide = (d: 'approve' | 'reject') => {
    setConfirming(false);
    return decision.decide(d);
  };
  const approve = () => {
    if (gate.name === 'final' && scorecard && !scorecard.passed) setConfirming(true);
    else void decide('approve');
  };
  const reject = () => {
    if (!notes.trim()) return refuseNotes('Notes are needed to reject: say what should change.');
    void decide('reject');
  };

  return html`<section class="gate" aria-labelledby="gate-h">
    <h2 id="gate-h">Gate <em>${clean(gate.name)}</em> is waiting for your decision</h2>
    ${gate.name === 'idea' ? html`<${IdeaSummary} spec=${spec} />` : null}
    ${gate.name === 'brand' ? html`<${BrandSummary} spec=${spec} />` : null}
    ${gate.name === 'final' ? html`<${ScorecardView} card=${scorecard} run=${run} spec=${spec} onSpecSaved=${onSpecSaved} onEditField=${onEditField} />` : null}
    <${GateHistory} gate=${gate} label="Decided before" />
    <form class="decision" onSubmit=${(e: Event) => e.preventDefault()}>
      <label for="gate-notes">Notes</label>
      <textarea id="gate-notes" ref=${notesRef} rows="3" value=${notes} aria-invalid=${notesError ? 'true' : undefined} aria-describedby=${notesError ? 'notes-error' : 'notes-help'}
        onInput=${(e: Event) => (setNotes((e.target as HTMLTextAreaElement).value), setNotesError(null))}></textarea>
      ${notesError ? html`<p id="notes-error" class="field-error">${notesError}</p>` : html`<p id="notes-help" class="help">Needed to reject; kept with an approval.</p>`}
      <div class="actions">
        <button type="button" class="primary" disabled=${busy} onClick=${approve}>Approve</button>
        <button type="button" class="danger" disabled=${busy} onClick=${reject}>Reject</button>
      </div>
      <${ErrorNote} error=${error} />
    </form>
    <${Confirm} open=${confirming} title="The scorecard did not pass" confirm="Approve anyway" tone="caution" onConfirm=${() => void decide('approve')} onCancel=${() => setConfirming(false)}>
      <p>Score ${scorecard?.score.score} of ${scorecard?.score.total}; pre-flight ${scorecard?.preflight.passed ? 'passed' : 'did not pass'}. Approving sends the app to app store review as it is.</p>
    </${Confirm}>
  </section>`;
}

/** A gate's decisions, oldest first, each with its time and notes: what was asked before (nothing when none). */
export function GateHistory({ gate, label }: { gate: Gate; label?: string }) {
  const history = gate.history ?? [];
  if (history.length === 0) return null;
  const list = html`<ol class="gate-history" aria-label=${`Decisions at gate ${clean(gate.name)}`}>
    ${history.map((h) => html`<li><span class=${h.decision === 'rejected' ? 'decision-rejected' : 'decision-approved'}>${clean(h.decision)}</span> <${Time} iso=${h.decided_at} />${h.notes ? html` — “${clean(h.notes)}”` : null}</li>`)}
  </ol>`;
  return label ? html`<div class="gate-history-box"><p class="help">${label}</p>${list}</div>` : list;
}

/** The scorecard a final gate decides on (none for the other gates, or while it loads). */
function useFinalScorecard(run: Run, gate: Gate): Scorecard | null {
  const [scorecard, setScorecard] = useState<Scorecard | null>(null);
  useEffect(() => {
    if (gate.name === 'final')
      api<Scorecard>('GET', `/v1/runs/${encodeURIComponent(run.id)}/scorecard`).then(setScorecard, () =>
        setScorecard(null),
      );
  }, [run.id, gate.name]);
  return scorecard;
}

/** Sending the decision: busy while it goes, the refusal kept to show (a refusal of the notes at the notes). */
function useDecision(
  run: Run,
  gate: Gate,
  notes: string,
  refuseNotes: (message: string) => void,
  onDecided: () => void,
) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      const body = decision === 'reject' || notes.trim() ? { notes: notes.trim() } : {};
      const path = `/v1/runs/${encodeURIComponent(run.id)}/gates/${encodeURIComponent(gate.name)}:${decision}`;
      await api('POST', path, body);
      announce(`gate ${gate.name} ${decision === 'approve' ? 'approved' : 'rejected'}`);
      onDecided();
    } catch (e) {
      setError(decidedElsewhere(e, gate));
      if (e instanceof ApiError && e.field === 'notes') refuseNotes(e.message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, decide };
}

/** A gate no longer pending was decided by someone else meanwhile: said so, in place of the bare code. */
function decidedElsewhere(e: unknown, gate: Gate): unknown {
  if (!(e instanceof ApiError) || e.code !== 'gate_not_pending') return e;
  const message = `The ${gate.name} gate is no longer waiting: it was decided elsewhere.`;
  return new ApiError(e.status, e.code, message, null, e.requestId);
}

function IdeaSummary({ spec }: { spec: AppSpec | null }) {
  if (!spec) return html`<p>Loading the idea…</p>`;
  const list = (v: unknown) => (Array.isArray(v) ? v.map(clean).join(', ') : clean(v));
  return html`<dl class="summary">
    <div><dt>Name</dt><dd>${clean(spec.name)}</dd></div>
    ${spec.tagline ? html`<div><dt>Tagline</dt><dd>${clean(spec.tagline)}</dd></div>` : null}
    ${spec.description ? html`<div><dt>Description</dt><dd>${clean(spec.description)}</dd></div>` : null}
    ${spec.audience ? html`<div><dt>Audience</dt><dd>${clean(spec.audience)}</dd></div>` : null}
    ${spec.monetization ? html`<div><dt>Monetization</dt><dd>${clean(spec.monetization)}</dd></div>` : null}
    ${spec.platforms ? html`<div><dt>Platforms</dt><dd>${list(spec.platforms)}</dd></div>` : null}
    ${spec.features ? html`<div><dt>Features</dt><dd>${list(spec.features)}</dd></div>` : null}
  </dl>`;
}

function BrandSummary({ spec }: { spec: AppSpec | null }) {
  if (!spec) return html`<p>Loading the brand…</p>`;
  const brand = (spec.brand ?? {}) as Record<string, unknown>;
  return html`<div class="brand-view">
    <h3>${clean(spec.name)}</h3>
    <${Swatches} palette=${brand.palette} />
    <dl class="summary">
      <div><dt>Typeface</dt><dd>${clean(brand.typeface ?? '—')}</dd></div>
      <div><dt>Voice</dt><dd>${clean(brand.voice ?? '—')}</dd></div>
    </dl>
  </div>`;
}
