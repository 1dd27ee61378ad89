// One run, live: its stage timeline from the run's own event stream (history replayed, then as it
// happens), the log, the pending gate with what is being decided, the App Spec, artifacts and outcome.
import { html } from 'htm/preact';
import { useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { compareStages } from '../contract/events.js';
import { runNameOf } from '../contract/run-name.js';
import type { AppSpec, Event, Gate, Run } from '../contract/schemas.js';
import { api, stream } from './api.js';
import { Artifacts } from './artifacts.js';
import { GateHistory, GatePanel } from './gate.js';
import { runNames } from './names.js';
import { type EditAt, SpecEditor } from './spec-editor.js';
import { clean, duration } from './text.js';
import { Confirm, ErrorNote, Link, Status, Time, announce } from './ui.js';

interface StageSpan {
  stage: string;
  start: number;
  end: number | null;
  percent: number;
  pass: number;
  /** The run ended in this stage without finishing it: failed or canceled. */
  stopped?: string;
}

interface LogLine {
  n: number;
  stage: string;
  level: string;
  message: string;
  ts: string;
}

/** The event the run ended with. */
type Outcome = Pick<Event, 'type' | 'data'>;

const MAX_LOG = 5_000;
const TERMINAL = new Set(['accepted', 'rejected', 'failed', 'canceled']);

/** What the page knows of the run: read from /v1, and what its event stream said. */
interface RunView {
  run: Run | null;
  gates: Gate[];
  error: unknown;
  spans: StageSpan[];
  log: LogLine[];
  outcome: Outcome | null;
  live: 'connecting' | 'live' | 'ended';
  /** How many times each gate has been pending: each time is a new decision, with its own scorecard. */
  rounds: Record<string, number>;
}

type RunAction =
  | { type: 'read'; run: Run; gates: Gate[] }
  | { type: 'failed'; error: unknown }
  | { type: 'restart' }
  | { type: 'stage'; ev: Event }
  | { type: 'gate'; ev: Event }
  | { type: 'end'; ev: Event }
  | { type: 'log'; lines: LogLine[] }
  | { type: 'connection'; open: boolean }
  | { type: 'canceled'; run: Run };

const NO_RUN: RunView = {
  run: null,
  gates: [],
  error: null,
  spans: [],
  log: [],
  outcome: null,
  live: 'connecting',
  rounds: {},
};

function runView(s: RunView, a: RunAction): RunView {
  switch (a.type) {
    case 'read':
      return { ...s, run: a.run, gates: a.gates, error: null };
    case 'failed':
      return { ...s, error: a.error };
    case 'restart':
      return { ...s, spans: [], log: [], outcome: null, rounds: {} };
    case 'stage':
      return { ...s, spans: stageChanged(s.spans, a.ev) };
    case 'gate': {
      const gate = String(a.ev.data.gate);
      return { ...s, rounds: { ...s.rounds, [gate]: (s.rounds[gate] ?? 0) + 1 } };
    }
    case 'end':
      return { ...s, outcome: { type: a.ev.type, data: a.ev.data }, spans: runEnded(s.spans, a.ev), live: 'ended' };
    case 'log': {
      const log =
        s.log.length + a.lines.length > MAX_LOG ? [...s.log, ...a.lines].slice(-MAX_LOG) : [...s.log, ...a.lines];
      return { ...s, log };
    }
    case 'connection':
      return { ...s, live: s.live === 'ended' ? s.live : a.open ? 'live' : 'connecting' };
    case 'canceled':
      return { ...s, run: a.run };
  }
}

/** A stage event: the span it continues, or a new one (a new pass when the stage was seen before). */
function stageChanged(prev: StageSpan[], ev: Event): StageSpan[] {
  const stage = String(ev.data.stage ?? '');
  const at = Date.parse(ev.created_at);
  const percent = Number(ev.data.percent ?? 0);
  const last = prev.at(-1);
  if (last && last.stage === stage && last.end === null) return [...prev.slice(0, -1), { ...last, percent }];
  const closed = last && last.end === null ? [...prev.slice(0, -1), { ...last, end: at }] : prev;
  return [...closed, { stage, start: at, end: null, percent, pass: prev.filter((s) => s.stage === stage).length + 1 }];
}

/** The run's end closes its open span: finished, or stopped where it failed or was canceled. */
function runEnded(prev: StageSpan[], ev: Event): StageSpan[] {
  const last = prev.at(-1);
  if (!last || last.end !== null) return prev;
  const stopped = ev.type === 'run.failed' ? 'failed' : ev.type === 'run.canceled' ? 'canceled' : undefined;
  return [
    ...prev.slice(0, -1),
    { ...last, end: Date.parse(ev.created_at), ...(stopped ? { stopped } : { percent: 100 }) },
  ];
}

/** Follows the run: reads it (again, soon after each event), and its event stream into the view. Returns
 * how to stop. */
function followRun(id: string, path: string, dispatch: (a: RunAction) => void): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const refresh = () => {
    timer = null;
    Promise.all([api<Run>('GET', path), api<{ data: Gate[] }>('GET', `${path}/gates`)])
      .then(([run, g]) => !stopped && dispatch({ type: 'read', run, gates: g.data }))
      .catch((error) => !stopped && dispatch({ type: 'failed', error }));
  };
  const soon = () => (timer ??= setTimeout(refresh, 80));
  refresh();
  dispatch({ type: 'restart' });
  const log = logLines((lines) => dispatch({ type: 'log', lines }));
  const onEnd = (ev: Event) => {
    dispatch({ type: 'end', ev });
    announce(`${id} ${ev.type.slice(4)}`);
    close();
    soon();
  };
  const close = stream(
    `${path}/events`,
    {
      'run.created': soon,
      'run.stage_changed': (ev: Event) => {
        dispatch({ type: 'stage', ev });
        soon();
      },
      'run.gate_pending': (ev: Event) => {
        dispatch({ type: 'gate', ev });
        announce(`gate ${String(ev.data.gate)} is waiting for a decision`);
        soon();
      },
      'run.gate_resolved': soon,
      'run.scored': soon,
      'run.accepted': onEnd,
      'run.rejected': onEnd,
      'run.failed': onEnd,
      'run.canceled': onEnd,
      log: log.add,
    },
    (open) => !stopped && dispatch({ type: 'connection', open }),
  );
  return () => {
    stopped = true;
    close();
    if (timer) clearTimeout(timer);
    log.stop();
  };
}

/** The stream's log events as lines, numbered; the lines of a replay arrive by the hundred: drawn together. */
function logLines(flush: (lines: LogLine[]) => void) {
  let n = 0;
  const buffer: LogLine[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    add(ev: Event) {
      buffer.push({
        n: ++n,
        stage: String(ev.data.stage ?? ''),
        level: String(ev.data.level ?? 'info'),
        message: String(ev.data.message ?? ''),
        ts: String(ev.data.ts ?? ev.created_at),
      });
      timer ??= setTimeout(() => {
        timer = null;
        flush(buffer.splice(0));
      }, 50);
    },
    stop() {
      if (timer) clearTimeout(timer);
    },
  };
}

/** The App Spec, once for the whole page: the gate panel and the spec section show the same one, so a saved
 * edit shows at the gate at once. Read again whenever `state` changes. */
function useSpec(path: string, id: string, state: string, hasRun: boolean) {
  const [spec, setSpec] = useState<AppSpec | null>(null);
  const [specError, setSpecError] = useState<unknown>(null);
  useEffect(() => {
    if (!hasRun) return;
    let stale = false;
    api<AppSpec>('GET', `${path}/spec`).then(
      (s) => !stale && (setSpec(s), setSpecError(null)),
      (e) => !stale && setSpecError(e),
    );
    return () => {
      stale = true;
    };
  }, [id, state]);
  return { spec, specError, setSpec };
}

/** Canceling the run: asked first (`asking`), then sent; a refusal is kept to show. */
function useCancel(path: string, id: string, dispatch: (a: RunAction) => void) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    setAsking(false);
    try {
      dispatch({ type: 'canceled', run: await api<Run>('POST', `${path}/cancel`) });
      announce(`${id} canceled`);
    } catch (e) {
      setError(e);
    }
  };
  return { asking, ask: () => setAsking(true), dismiss: () => setAsking(false), confirm, error };
}

export function RunPage({ id }: { id: string }) {
  const path = `/v1/runs/${encodeURIComponent(id)}`;
  const [view, dispatch] = useReducer(runView, NO_RUN);
  const [version, setVersion] = useState(0);
  const { run, gates, error, spans, log, outcome, live, rounds } = view;
  useEffect(() => followRun(id, path, dispatch), [id]);
  const cancel = useCancel(path, id, dispatch);
  // What the spec and artifacts are read again on: the run moving on, or a decision taken here.
  const state = run ? `${run.status}|${run.stage}|${run.gate_pending}|${version}` : '';
  const { spec, specError, setSpec } = useSpec(path, id, state, run !== null);
  const name = useNameOf(id, spec);
  const [editAt, setEditAt] = useState<EditAt | null>(null);
  const editField = (field: string) => setEditAt((was) => ({ field, n: (was?.n ?? 0) + 1 }));

  if (!run)
    return html`<h1 tabindex="-1">${clean(id)}</h1><${ErrorNote} error=${error} />${error ? html`<p><${Link} href="/console/">Back to the runs</${Link}></p>` : html`<p>Loading…</p>`}`;
  const terminal = TERMINAL.has(run.status);
  const pending =
    run.status === 'awaiting_approval' && run.gate_pending ? gates.find((g) => g.name === run.gate_pending) : undefined;
  // The panel is one round of a gate: a gate that comes round again (a rework, however quick) is a new decision,
  // with a fresh notes box and its new scorecard. A first round read before the stream replays it is round 1.
  return html`
    <p class="crumbs"><${Link} href="/console/">Runs</${Link}> / <span>${clean(run.id)}</span></p>
    <h1 tabindex="-1">${name ? html`${clean(name)} <span class="run-id">${clean(run.id)}</span>` : clean(run.id)}</h1>
    <${RunFacts} run=${run} live=${live} />
    <${ErrorNote} error=${error} />
    ${!terminal ? html`<p><button type="button" class="danger" onClick=${cancel.ask}>Cancel run</button></p><${ErrorNote} error=${cancel.error} />` : null}
    <${Confirm} open=${cancel.asking} title="Cancel this run?" confirm="Cancel run" danger=${true} onConfirm=${cancel.confirm} onCancel=${cancel.dismiss}>
      <p>${clean(run.id)} stops where it is and cannot be resumed.</p>
    </${Confirm}>
    ${outcome || terminal ? html`<${OutcomeView} run=${run} outcome=${outcome} />` : null}
    ${pending ? html`<${GatePanel} key=${`${pending.name}:${Math.max(1, rounds[pending.name] ?? 0)}`} run=${run} gate=${pending} spec=${spec} onDecided=${() => setVersion((v) => v + 1)} onSpecSaved=${setSpec} onEditField=${editField} />` : null}
    <section aria-labelledby="timeline-h">
      <h2 id="timeline-h">Stages</h2>
      <${Timeline} spans=${spans} run=${run} />
    </section>
    <${GateList} gates=${gates} />
    <${SpecEditor} key=${`spec:${run.id}`} run=${run} spec=${spec} loadError=${specError} onSaved=${setSpec} editAt=${editAt} />
    <${Artifacts} run=${run} version=${state} />
    <section aria-labelledby="log-h">
      <h2 id="log-h">Log</h2>
      <${LogView} lines=${log} />
    </section>`;
}

/** The run's name from the App Spec this page reads anyway (no read of its own), in the heading and the tab's
 * title; the list, which shares the names, reads it again when this spec has changed. */
function useNameOf(id: string, spec: AppSpec | null): string | null {
  const name = spec ? runNameOf(spec) : null;
  useEffect(() => {
    document.title = `${name ? `${clean(name)} · ` : ''}${id} · orc console`;
    if (spec && runNames.peek(id) !== undefined && runNames.peek(id) !== name) runNames.forget(id);
  }, [id, name]);
  return name;
}

function RunFacts({ run, live }: { run: Run; live: RunView['live'] }) {
  return html`<dl class="facts">
      <div><dt>Status</dt><dd><${Status} status=${run.status} /></dd></div>
      <div><dt>Stage</dt><dd>${clean(run.stage)}</dd></div>
      <div><dt>Mode</dt><dd>${clean(run.mode)}</dd></div>
      <div><dt>Created</dt><dd><${Time} iso=${run.created_at} /></dd></div>
      <div><dt>Stream</dt><dd>${live === 'live' ? '● live' : live === 'ended' ? 'ended' : '○ connecting…'}</dd></div>
    </dl>`;
}

function Timeline({ spans, run }: { spans: StageSpan[]; run: Run }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  if (spans.length === 0) return html`<p class="muted">No stage has started yet.</p>`;
  const ordered = spans; // in the order they happened: a rejected gate sends the run back, shown as a new pass
  return html`<ol class="timeline">
    ${ordered.map((s, i) => {
      const current = s.end === null && !TERMINAL.has(run.status);
      const waiting = current && run.status === 'awaiting_approval';
      const took = (s.end ?? (current ? now : s.start)) - s.start;
      const state = s.stopped ? 'stopped' : current ? 'current' : s.end === null ? 'stopped' : 'done';
      return html`<li key=${i} class=${state}>
        <span class="stage">${clean(s.stage)}${s.pass > 1 ? html` <span class="muted">(pass ${s.pass})</span>` : ''}</span>
        <progress max="100" value=${state === 'done' ? 100 : s.percent} aria-label=${`${clean(s.stage)} progress`}>${s.percent}%</progress>
        <span class="pct">${state === 'done' ? 'done' : s.stopped ? `${s.stopped} at ${s.percent}%` : `${s.percent}%`}</span>
        <span class="took">${duration(took)}${waiting ? ` · waiting at gate ${clean(run.gate_pending)}` : current ? ' so far' : ''}</span>
      </li>`;
    })}
  </ol>`;
}

function GateList({ gates }: { gates: Gate[] }) {
  if (gates.length === 0) return null;
  return html`<section aria-labelledby="gates-h">
    <h2 id="gates-h">Gates</h2>
    <table>
      <thead><tr><th scope="col">Gate</th><th scope="col">State</th><th scope="col">Decided</th><th scope="col">Notes</th><th scope="col">Every decision</th></tr></thead>
      <tbody>
        ${gates.map((g) => html`<tr key=${g.name}><th scope="row">${clean(g.name)}</th><td>${clean(g.state)}</td><td><${Time} iso=${g.decided_at} /></td><td>${clean(g.notes ?? '')}</td><td><${GateHistory} gate=${g} /></td></tr>`)}
      </tbody>
    </table>
  </section>`;
}

function OutcomeView({ run, outcome }: { run: Run; outcome: Outcome | null }) {
  const d: Event['data'] = outcome?.data ?? {};
  if (run.status === 'accepted') {
    const url = typeof d.app_store_url === 'string' && /^https:\/\//.test(d.app_store_url) ? d.app_store_url : null;
    return html`<section class="outcome ok" aria-labelledby="outcome-h"><h2 id="outcome-h">✓ Accepted</h2>
      <p>App ${clean(run.app_id ?? d.app_id ?? '')} passed app store review.${url ? html` <a href=${url} rel="noreferrer noopener" target="_blank">Open in the App Store</a>` : ''}</p>
      <p class="muted">From a terminal: <code>orc artifacts pull ${clean(run.id)}</code> · <code>orc scorecard ${clean(run.id)}</code></p></section>`;
  }
  if (run.status === 'rejected')
    return html`<section class="outcome bad" aria-labelledby="outcome-h"><h2 id="outcome-h">✗ Rejected by app review</h2><p>${d.reason ? clean(d.reason) : 'No reason was given.'}</p></section>`;
  if (run.status === 'failed') {
    const err = (d.error ?? {}) as { code?: string; message?: string };
    return html`<section class="outcome bad" aria-labelledby="outcome-h"><h2 id="outcome-h">✗ Failed${d.stage ? ` at ${clean(d.stage)}` : ''}</h2>
      <p>${err.code ? html`<code>${clean(err.code)}</code>: ` : ''}${clean(err.message ?? 'no error was given')}</p>
      <p class="muted">The log below keeps the lines; <em>Show: errors</em> picks them out.</p></section>`;
  }
  if (run.status === 'canceled')
    return html`<section class="outcome" aria-labelledby="outcome-h"><h2 id="outcome-h">■ Canceled</h2><p>The run was canceled${d.reason ? `: ${clean(d.reason)}` : '.'}</p></section>`;
  return null;
}

function LogView({ lines }: { lines: LogLine[] }) {
  const [level, setLevel] = useState('all');
  const box = useRef<HTMLDivElement>(null);
  const shown = useMemo(
    () =>
      level === 'all' ? lines : lines.filter((l) => (level === 'warn' ? l.level !== 'info' : l.level === 'error')),
    [lines, level],
  );
  const counts = useMemo(
    () => ({
      warn: lines.filter((l) => l.level === 'warn').length,
      error: lines.filter((l) => l.level === 'error').length,
    }),
    [lines],
  );
  useEffect(() => {
    const el = box.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  }, [shown.length]);
  const stages = [...new Set(shown.map((l) => l.stage))].sort(compareStages);
  return html`
    <div class="toolbar">
      <label>Show
        <select value=${level} onChange=${(e: Event) => setLevel((e.target as HTMLSelectElement).value)}>
          <option value="all">every line (${lines.length})</option>
          <option value="warn">warnings and errors (${counts.warn + counts.error})</option>
          <option value="error">errors (${counts.error})</option>
        </select>
      </label>
      <span class="muted">${stages.length} stage${stages.length === 1 ? '' : 's'}</span>
    </div>
    <div class="log" ref=${box} tabindex="0" role="log" aria-label="Run log">
      ${shown.length === 0 ? html`<p class="muted">No lines${level === 'all' ? ' yet' : ' of that kind'}.</p>` : null}
      ${shown.map(
        (l) => html`<div key=${l.n} class=${`line ${l.level === 'warn' || l.level === 'error' ? l.level : 'info'}`}>
          <span class="ts">${clean(l.ts.slice(11, 19))}</span> <span class="lstage">${clean(l.stage)}</span> ${l.level === 'warn' ? html`<strong class="lvl">WARN</strong> ` : l.level === 'error' ? html`<strong class="lvl">ERROR</strong> ` : ''}<span class="msg">${clean(l.message)}</span>
        </div>`,
      )}
    </div>`;
}
