// The sandbox's own controls (CONTRACT.md, "Sandbox control"), through its documented /_sandbox/ API: the
// clock and advance, triggers, faults, reset, and the request log as it grows.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { EVENT_KINDS, GATE_NAMES } from '../contract/events.js';
import { faultEffects, type Fault, type JournalEntry } from '../contract/sandbox-control.js';
import { api, stream } from './api.js';
import { clean, when } from './text.js';
import { Confirm, ErrorNote, Link, announce } from './ui.js';

interface ClockView {
  mode: string;
  now: string;
  next_due: string | null;
  runs: Array<{ id: string; status: string; stage: string; gate_pending: string | null }>;
}

/** The form's fields, as text; empty ones are left out of the body. */
function formBody(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v.trim() !== '') out[k] = v.trim();
  return out;
}

export function SandboxPage() {
  const [clock, setClock] = useState<ClockView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const loadClock = () => api<ClockView>('GET', '/_sandbox/clock').then((c) => (setClock(c), setError(null)), setError);
  useEffect(() => {
    document.title = 'Sandbox · orc console';
    void loadClock();
    const t = setInterval(() => void loadClock(), 2000);
    return () => clearInterval(t);
  }, []);
  return html`
    <h1 tabindex="-1">Sandbox</h1>
    <${ErrorNote} error=${error} />
    <section aria-labelledby="clock-h" class="card">
      <h2 id="clock-h">Clock</h2>
      ${
        clock
          ? html`<dl class="facts">
            <div><dt>Now</dt><dd><time datetime=${clean(clock.now)} title=${clean(clock.now)}>${when(clock.now)}</time></dd></div>
            <div><dt>Mode</dt><dd>${clock.mode === 'manual' ? 'manual: it moves when advanced' : 'real time'}</dd></div>
            <div><dt>Next due</dt><dd>${clock.next_due ? when(clock.next_due) : '—'}</dd></div>
            <div><dt>Runs moving</dt><dd>${clock.runs.length}</dd></div>
          </dl>`
          : html`<p>Loading…</p>`
      }
      <${Advance} onDone=${loadClock} />
    </section>
    <${Trigger} onDone=${loadClock} />
    <${Faults} />
    <${Reset} onDone=${loadClock} />
    <${RequestLog} />`;
}

function Advance({ onDone }: { onDone: () => void }) {
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = formBody(e.target as HTMLFormElement);
    try {
      const out = await api<{ now: string; fired?: number; reached?: string }>('POST', '/_sandbox/clock/advance', body);
      setResult(
        `Now ${out.now}${out.reached ? `; the run reached ${out.reached}` : ''}${out.fired !== undefined ? `; ${out.fired} timer(s) fired` : ''}.`,
      );
      setError(null);
      announce('advanced');
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form onSubmit=${submit} class="inline-form" aria-labelledby="advance-h">
    <h3 id="advance-h">Advance</h3>
    <div class="field"><label for="adv-by">By</label><input id="adv-by" name="by" placeholder="90s, 15m, 3h, 2d" /></div>
    <div class="field"><label for="adv-run">Run (optional)</label><input id="adv-run" name="run" placeholder="run_…" /></div>
    <div class="field"><label for="adv-to">To (with a run)</label><input id="adv-to" name="to" placeholder="05_build, gate:final, end" /></div>
    <button type="submit">Advance</button>
    ${result ? html`<p role="status">${clean(result)}</p>` : null}
    <${ErrorNote} error=${error} />
  </form>`;
}

function Trigger({ onDone }: { onDone: () => void }) {
  const [kind, setKind] = useState<string>('run.gate_pending');
  const [result, setResult] = useState<{ run: { id: string; status: string }; event: { type: string } } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const b: Record<string, unknown> = formBody(form);
    if (b.passed === 'no') b.passed = false;
    else delete b.passed;
    try {
      const out = await api<{ run: { id: string; status: string }; event: { type: string } }>(
        'POST',
        '/_sandbox/trigger',
        b,
      );
      setResult(out);
      setError(null);
      announce(`${out.event.type} produced on ${out.run.id}`);
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card" aria-labelledby="trigger-h">
    <h2 id="trigger-h">Trigger an event</h2>
    <form onSubmit=${submit} class="inline-form">
      <div class="field"><label for="tr-kind">Event</label>
        <select id="tr-kind" name="kind" value=${kind} onChange=${(e: Event) => setKind((e.target as HTMLSelectElement).value)}>${EVENT_KINDS.map((k) => html`<option value=${k}>${k}</option>`)}</select></div>
      <div class="field"><label for="tr-run">Run (default: a new one)</label><input id="tr-run" name="run" placeholder="run_…" /></div>
      ${kind === 'run.failed' || kind === 'run.stage_changed' ? html`<div class="field"><label for="tr-stage">Stage</label><input id="tr-stage" name="stage" placeholder="05_build" /></div>` : null}
      ${kind === 'run.gate_pending' || kind === 'run.gate_resolved' ? html`<div class="field"><label for="tr-gate">Gate</label><select id="tr-gate" name="gate">${GATE_NAMES.map((g) => html`<option value=${g}>${g}</option>`)}</select></div>` : null}
      ${kind === 'run.failed' ? html`<div class="field"><label for="tr-error">Error (code: message)</label><input id="tr-error" name="error" placeholder="build_failed: …" /></div>` : null}
      ${kind === 'run.rejected' || kind === 'run.gate_resolved' ? html`<div class="field"><label for="tr-reason">${kind === 'run.rejected' ? 'Reason' : 'Reject with notes (empty approves)'}</label><input id="tr-reason" name="reason" /></div>` : null}
      ${kind === 'run.scored' ? html`<div class="field"><label for="tr-passed">Scorecard</label><select id="tr-passed" name="passed"><option value="yes">passes</option><option value="no">does not pass</option></select></div>` : null}
      <button type="submit">Trigger</button>
    </form>
    ${result ? html`<p role="status">${clean(result.event.type)} on <${Link} href=${`/console/runs/${encodeURIComponent(result.run.id)}`}>${clean(result.run.id)}</${Link}> (now ${clean(result.run.status)}).</p>` : null}
    <${ErrorNote} error=${error} />
  </section>`;
}

function Faults() {
  const { faults, error, add, remove, clear } = useFaults();
  return html`<section class="card" aria-labelledby="faults-h">
    <h2 id="faults-h">Faults</h2>
    <${ErrorNote} error=${error} />
    ${faults && faults.length === 0 ? html`<p>No faults: the sandbox answers as the service would.</p>` : null}
    ${faults && faults.length ? html`<${FaultTable} faults=${faults} remove=${remove} clear=${clear} />` : null}
    <form onSubmit=${add} class="inline-form" aria-labelledby="fault-add-h">
      <h3 id="fault-add-h">Add a fault</h3>
      <div class="field"><label for="fl-route">Route</label><input id="fl-route" name="route" placeholder="POST /v1/runs" /></div>
      <div class="field"><label for="fl-webhook">or webhook</label><input id="fl-webhook" name="webhook" placeholder="wh_…" /></div>
      <div class="field"><label for="fl-status">Status</label><input id="fl-status" name="status" inputmode="numeric" placeholder="503" /></div>
      <div class="field"><label for="fl-latency">Latency (ms)</label><input id="fl-latency" name="latency_ms" inputmode="numeric" /></div>
      <div class="field"><label for="fl-cut">Cut stream after</label><input id="fl-cut" name="cut_after" inputmode="numeric" /></div>
      <div class="field"><label for="fl-times">Times</label><input id="fl-times" name="times" inputmode="numeric" /></div>
      <div class="field"><label for="fl-p">Probability</label><input id="fl-p" name="probability" inputmode="decimal" placeholder="0.5" /></div>
      <label class="check"><input type="checkbox" name="drop" /> Reset the connection</label>
      <button type="submit">Add fault</button>
    </form>
  </section>`;
}

/** The faults, read again after each change made here; a refused change is kept to show. */
function useFaults() {
  const [faults, setFaults] = useState<Fault[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api<{ data: Fault[] }>('GET', '/_sandbox/faults').then((f) => (setFaults(f.data), setError(null)), setError);
  useEffect(() => {
    void load();
  }, []);
  /** One change: sent, said, and the list read again. */
  const change = async (send: () => Promise<unknown>) => {
    try {
      await send();
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const add = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    return change(async () => {
      const f = await api<Fault>('POST', '/_sandbox/faults', faultBody(form));
      form.reset();
      announce(`fault ${f.id} added`);
    });
  };
  const remove = (id: string) =>
    change(async () => {
      await api('DELETE', `/_sandbox/faults/${encodeURIComponent(id)}`);
      announce(`fault ${id} removed`);
    });
  const clear = () =>
    change(async () => {
      await api('DELETE', '/_sandbox/faults');
      announce('every fault removed');
    });
  return { faults, error, add, remove, clear };
}

/** The add form as a fault: its numbers as numbers, its checkbox as `reset`. */
function faultBody(form: HTMLFormElement): Record<string, unknown> {
  const b: Record<string, unknown> = formBody(form);
  for (const k of ['status', 'latency_ms', 'cut_after', 'times', 'probability', 'seed'])
    if (typeof b[k] === 'string') b[k] = Number(b[k]);
  // (The checkbox is not named `reset`: that name would hide the form's own reset().)
  if (b.drop === 'on') b.reset = true;
  delete b.drop;
  return b;
}

function FaultTable({
  faults,
  remove,
  clear,
}: {
  faults: Fault[];
  remove: (id: string) => Promise<void>;
  clear: () => Promise<void>;
}) {
  return html`<table>
          <thead><tr><th scope="col">Fault</th><th scope="col">Takes</th><th scope="col">Does</th><th scope="col">Applied</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>${faults.map(
            (
              f,
            ) => html`<tr key=${f.id}><th scope="row">${clean(f.id)}</th><td>${clean(f.route ?? `webhook ${f.webhook}`)}</td>
              <td>${faultEffects(f).map(clean).join(', ')}</td>
              <td>${f.applied}</td><td><button type="button" onClick=${() => void remove(f.id)}>Remove<span class="visually-hidden"> ${clean(f.id)}</span></button></td></tr>`,
          )}</tbody>
        </table>
        <p><button type="button" onClick=${() => void clear()}>Remove every fault</button></p>`;
}

function Reset({ onDone }: { onDone: () => void }) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const reset = async () => {
    setAsking(false);
    try {
      await api('POST', '/_sandbox/reset');
      announce('the sandbox is empty');
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card" aria-labelledby="reset-h">
    <h2 id="reset-h">Reset</h2>
    <p>Empties runs, webhooks, deliveries and faults; keeps the key and the knobs.</p>
    <button type="button" class="danger" onClick=${() => setAsking(true)}>Reset the sandbox</button>
    <${ErrorNote} error=${error} />
    <${Confirm} open=${asking} title="Empty the sandbox?" confirm="Reset" danger=${true} onConfirm=${reset} onCancel=${() => setAsking(false)}>
      <p>Every run, webhook, delivery and fault is removed.</p>
    </${Confirm}>
  </section>`;
}

const MAX_ENTRIES = 200;

function RequestLog() {
  const [entries, setEntries] = useState<JournalEntry[]>([]);
  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(false);
  pausedRef.current = paused;
  useEffect(() => {
    let buffer: JournalEntry[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const close = stream('/_sandbox/logs?follow=1', {
      entry: (e: JournalEntry) => {
        if (pausedRef.current) return;
        buffer.push(e);
        timer ??= setTimeout(() => {
          timer = null;
          const add = buffer;
          buffer = [];
          setEntries((prev) => [...add.reverse(), ...prev].slice(0, MAX_ENTRIES));
        }, 100);
      },
    });
    return () => {
      close();
      if (timer) clearTimeout(timer);
    };
  }, []);
  return html`<section class="card" aria-labelledby="log-h">
    <h2 id="log-h">Request log</h2>
    <p class="muted">The latest ${MAX_ENTRIES} requests and webhook delivery attempts, newest first (<code>orc sandbox logs</code>).
      <button type="button" aria-pressed=${paused} onClick=${() => setPaused(!paused)}>${paused ? 'Resume' : 'Pause'}</button></p>
    <div class="journal-box" tabindex="0" role="region" aria-label="Request log entries">
    <table class="journal">
      <thead><tr><th scope="col">Time</th><th scope="col">What</th><th scope="col">Status</th><th scope="col">Took</th><th scope="col">Fault</th></tr></thead>
      <tbody>${entries.map(
        (e) => html`<tr key=${e.seq}>
          <td><time datetime=${clean(e.at)}>${clean(e.at.slice(11, 23))}</time></td>
          <td>${e.type === 'request' ? html`<code>${clean(e.method)} ${clean(e.path)}</code>` : html`delivery ${clean(e.delivery_id)} to ${clean(e.url)}`}</td>
          <td>${e.status ?? clean(e.type === 'delivery' ? (e.error ?? '—') : '—')}</td>
          <td>${e.ms} ms</td>
          <td>${clean(e.fault ?? '')}</td>
        </tr>`,
      )}</tbody>
    </table>
    </div>
  </section>`;
}
