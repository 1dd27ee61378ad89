// One run, live: its stage timeline from the run's own event stream (history replayed, then as it
// happens), the log, the pending gate with what is being decided, the App Spec, artifacts and outcome.
import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { compareStages } from '../contract/events.js';
import { api, stream, type Envelope, type Run } from './api.js';
import { Artifacts } from './artifacts.js';
import { GatePanel, type Gate, type Spec } from './gate.js';
import { SpecEditor } from './spec-editor.js';
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

interface Outcome {
  type: string;
  data: Record<string, any>;
}

const MAX_LOG = 5_000;
const TERMINAL = new Set(['accepted', 'rejected', 'failed', 'canceled']);

export function RunPage({ id }: { id: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [gates, setGates] = useState<Gate[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [spans, setSpans] = useState<StageSpan[]>([]);
  const [log, setLog] = useState<LogLine[]>([]);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [version, setVersion] = useState(0);
  const [live, setLive] = useState<'connecting' | 'live' | 'ended'>('connecting');
  const [canceling, setCanceling] = useState(false);
  const [cancelError, setCancelError] = useState<unknown>(null);
  // The App Spec, once for the whole page: the gate panel and the spec section show the same one, so a
  // saved edit shows at the gate at once (the panel kept its own copy, as it was, until a reload).
  const [spec, setSpec] = useState<Spec | null>(null);
  const [specError, setSpecError] = useState<unknown>(null);
  const path = `/v1/runs/${encodeURIComponent(id)}`;

  useEffect(() => {
    document.title = `${id} · orc console`;
  }, [id]);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const refresh = () => {
      timer = null;
      Promise.all([api<Run>('GET', path), api<{ data: Gate[] }>('GET', `${path}/gates`)])
        .then(([r, g]) => {
          if (stopped) return;
          setRun(r);
          setGates(g.data);
          setError(null);
        })
        .catch((e) => !stopped && setError(e));
    };
    const soon = () => (timer ??= setTimeout(refresh, 80));
    refresh();
    setSpans([]);
    setLog([]);
    setOutcome(null);
    let n = 0;
    const logBuffer: LogLine[] = [];
    let logTimer: ReturnType<typeof setTimeout> | null = null;
    const onStage = (ev: Envelope<{ stage?: string; percent?: number }>) => {
      const stage = String(ev.data.stage ?? '');
      const at = Date.parse(ev.created_at);
      const percent = Number(ev.data.percent ?? 0);
      setSpans((prev) => {
        const last = prev.at(-1);
        if (last && last.stage === stage && last.end === null) return [...prev.slice(0, -1), { ...last, percent }];
        const closed = last && last.end === null ? [...prev.slice(0, -1), { ...last, end: at }] : prev;
        return [
          ...closed,
          { stage, start: at, end: null, percent, pass: prev.filter((s) => s.stage === stage).length + 1 },
        ];
      });
      soon();
    };
    const onEnd = (ev: Envelope) => {
      setOutcome({ type: ev.type, data: ev.data as Record<string, any> });
      setSpans((prev) => {
        const last = prev.at(-1);
        if (!last || last.end !== null) return prev;
        const stopped = ev.type === 'run.failed' ? 'failed' : ev.type === 'run.canceled' ? 'canceled' : undefined;
        return [
          ...prev.slice(0, -1),
          { ...last, end: Date.parse(ev.created_at), ...(stopped ? { stopped } : { percent: 100 }) },
        ];
      });
      announce(`${id} ${ev.type.slice(4)}`);
      setLive('ended');
      close();
      soon();
    };
    const close = stream(
      `${path}/events`,
      {
        'run.created': soon,
        'run.stage_changed': onStage,
        'run.gate_pending': (ev: Envelope<{ gate?: string }>) => {
          announce(`gate ${String(ev.data.gate)} is waiting for a decision`);
          soon();
        },
        'run.gate_resolved': soon,
        'run.scored': soon,
        'run.accepted': onEnd,
        'run.rejected': onEnd,
        'run.failed': onEnd,
        'run.canceled': onEnd,
        log: (ev: Envelope<{ stage?: string; level?: string; message?: string; ts?: string }>) => {
          logBuffer.push({
            n: ++n,
            stage: String(ev.data.stage ?? ''),
            level: String(ev.data.level ?? 'info'),
            message: String(ev.data.message ?? ''),
            ts: String(ev.data.ts ?? ev.created_at),
          });
          // Lines of a replay arrive by the hundred: drawn together.
          logTimer ??= setTimeout(() => {
            logTimer = null;
            const add = logBuffer.splice(0);
            setLog((prev) =>
              prev.length + add.length > MAX_LOG ? [...prev, ...add].slice(-MAX_LOG) : [...prev, ...add],
            );
          }, 50);
        },
      },
      (open) => !stopped && setLive((s) => (s === 'ended' ? s : open ? 'live' : 'connecting')),
    );
    return () => {
      stopped = true;
      close();
      if (timer) clearTimeout(timer);
      if (logTimer) clearTimeout(logTimer);
    };
  }, [id]);

  const cancel = async () => {
    setCanceling(false);
    try {
      setRun(await api<Run>('POST', `${path}/cancel`));
      announce(`${id} canceled`);
    } catch (e) {
      setCancelError(e);
    }
  };

  // What the spec and artifacts are read again on: the run moving on, or a decision taken here.
  const state = run ? `${run.status}|${run.stage}|${run.gate_pending}|${version}` : '';
  useEffect(() => {
    if (!run) return;
    let stale = false;
    api<Spec>('GET', `${path}/spec`).then(
      (s) => !stale && (setSpec(s), setSpecError(null)),
      (e) => !stale && setSpecError(e),
    );
    return () => {
      stale = true;
    };
  }, [id, state]);

  if (!run)
    return html`<h1 tabindex="-1">${clean(id)}</h1><${ErrorNote} error=${error} />${error ? html`<p><${Link} href="/console/">Back to the runs</${Link}></p>` : html`<p>Loading…</p>`}`;
  const terminal = TERMINAL.has(run.status);
  const pending =
    run.status === 'awaiting_approval' && run.gate_pending ? gates.find((g) => g.name === run.gate_pending) : undefined;
  return html`
    <p class="crumbs"><${Link} href="/console/">Runs</${Link}> / <span>${clean(run.id)}</span></p>
    <h1 tabindex="-1">${clean(run.id)}</h1>
    <dl class="facts">
      <div><dt>Status</dt><dd><${Status} status=${run.status} /></dd></div>
      <div><dt>Stage</dt><dd>${clean(run.stage)}</dd></div>
      <div><dt>Mode</dt><dd>${clean(run.mode)}</dd></div>
      <div><dt>Created</dt><dd><${Time} iso=${run.created_at} /></dd></div>
      <div><dt>Stream</dt><dd>${live === 'live' ? '● live' : live === 'ended' ? 'ended' : '○ connecting…'}</dd></div>
    </dl>
    <${ErrorNote} error=${error} />
    ${!terminal ? html`<p><button type="button" class="danger" onClick=${() => setCanceling(true)}>Cancel run</button></p><${ErrorNote} error=${cancelError} />` : null}
    <${Confirm} open=${canceling} title="Cancel this run?" confirm="Cancel run" danger=${true} onConfirm=${cancel} onCancel=${() => setCanceling(false)}>
      <p>${clean(run.id)} stops where it is and cannot be resumed.</p>
    </${Confirm}>
    ${outcome || terminal ? html`<${OutcomeView} run=${run} outcome=${outcome} />` : null}
    ${pending ? html`<${GatePanel} key=${`${pending.name}:${pending.decided_at}`} run=${run} gate=${pending} spec=${spec} onDecided=${() => setVersion((v) => v + 1)} />` : null}
    <section aria-labelledby="timeline-h">
      <h2 id="timeline-h">Stages</h2>
      <${Timeline} spans=${spans} run=${run} />
    </section>
    <${GateList} gates=${gates} />
    <${SpecEditor} key=${`spec:${run.id}`} run=${run} spec=${spec} loadError=${specError} onSaved=${setSpec} />
    <${Artifacts} run=${run} version=${state} />
    <section aria-labelledby="log-h">
      <h2 id="log-h">Log</h2>
      <${LogView} lines=${log} />
    </section>`;
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
      <thead><tr><th scope="col">Gate</th><th scope="col">State</th><th scope="col">Decided</th><th scope="col">Notes</th></tr></thead>
      <tbody>
        ${gates.map((g) => html`<tr key=${g.name}><th scope="row">${clean(g.name)}</th><td>${clean(g.state)}</td><td><${Time} iso=${g.decided_at} /></td><td>${clean(g.notes ?? '')}</td></tr>`)}
      </tbody>
    </table>
  </section>`;
}

function OutcomeView({ run, outcome }: { run: Run; outcome: Outcome | null }) {
  const d = outcome?.data ?? {};
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
