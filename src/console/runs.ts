// The runs, newest first, a page at a time; changes arrive through the sandbox's stream of every run's
// events (GET /_sandbox/events) and each changed run on the page is read again from /v1.
import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { EVENT_KINDS, RUN_STATUSES } from '../contract/events.js';
import type { Event, Page, Run } from '../contract/schemas.js';
import { api, query, stream } from './api.js';
import { runNames, useRunNames } from './names.js';
import { clean } from './text.js';
import { ErrorNote, Link, Status, Time, announce, navigate, useNow } from './ui.js';

const PAGE = 25;

export function RunsPage({ search }: { search: string }) {
  const params = new URLSearchParams(search);
  const status = params.get('status') ?? '';
  const cursor = params.get('cursor');
  const { page, error, live } = useRunsPage(status, cursor);
  const now = useNow();
  useEffect(() => {
    document.title = 'Runs · orc console';
  }, []);
  const go = (next: Record<string, string | null>) => navigate(`/console/${query({ status, ...next })}`);
  return html`
    <h1 tabindex="-1">Runs</h1>
    <div class="toolbar">
      <label>Status
        <select value=${status} onChange=${(e: Event) => go({ status: (e.target as HTMLSelectElement).value, cursor: null })}>
          <option value="">all</option>
          ${RUN_STATUSES.map((s) => html`<option value=${s}>${s.replace('_', ' ')}</option>`)}
        </select>
      </label>
      <span class="muted live-state">${live ? '● live' : '○ connecting…'}</span>
    </div>
    <${ErrorNote} error=${error} />
    ${page === null && !error ? html`<p>Loading…</p>` : null}
    ${page && page.data.length === 0 ? html`<p>No runs${status ? ` with status ${status.replace('_', ' ')}` : ''} yet. Create one with <code>orc run create</code>, or trigger one on the <${Link} href="/console/sandbox">Sandbox</${Link}> page.</p>` : null}
    ${page && page.data.length > 0 ? html`<${RunsTable} runs=${page.data} now=${now} />` : null}
    <nav class="pager" aria-label="Pages of runs">
      ${cursor ? html`<button type="button" onClick=${() => go({ cursor: null })}>← Newest</button>` : null}
      ${page?.has_more && page.next_cursor ? html`<button type="button" onClick=${() => go({ cursor: page.next_cursor })}>Older →</button>` : null}
    </nav>`;
}

function RunsTable({ runs, now }: { runs: Run[]; now: number }) {
  const names = useRunNames(useMemo(() => runs.map((r) => r.id), [runs]));
  return html`<div class="table-scroll"><table class="runs">
          <caption class="visually-hidden">Runs, newest first</caption>
          <thead><tr><th scope="col">Run</th><th scope="col">App</th><th scope="col">Status</th><th scope="col">Stage</th><th scope="col">Gate pending</th><th scope="col">Mode</th><th scope="col">Created</th></tr></thead>
          <tbody>
            ${runs.map(
              (r) => html`<tr key=${r.id} data-run=${r.id}>
                <th scope="row"><${Link} href=${`/console/runs/${encodeURIComponent(r.id)}`}>${clean(r.id)}</${Link}></th>
                <td class="run-name">${names.get(r.id) ? clean(names.get(r.id)) : html`<span class="muted">—</span>`}</td>
                <td><${Status} status=${r.status} /></td>
                <td>${clean(r.stage)}</td>
                <td>${r.gate_pending ? html`<strong>${clean(r.gate_pending)}</strong>` : html`<span class="muted">—</span>`}</td>
                <td>${clean(r.mode)}</td>
                <td><${Time} iso=${r.created_at} now=${now} /></td>
              </tr>`,
            )}
          </tbody>
        </table></div>`;
}

/** The page of runs asked for, kept current by the stream of every run's events. */
function useRunsPage(status: string, cursor: string | null) {
  const [page, setPage] = useState<Page<Run> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [live, setLive] = useState(false);
  const rows = useRef<Run[]>([]);
  rows.current = page?.data ?? [];

  useEffect(() => {
    let stopped = false;
    const load = () =>
      api<Page<Run>>('GET', `/v1/runs${query({ limit: PAGE, status, cursor })}`)
        .then((p) => !stopped && (setPage(p), setError(null)))
        .catch((e) => !stopped && setError(e));
    void load();
    // Runs that changed, read again together a frame later (the events of one tick arrive together: one read).
    const dirty = new Set<string>();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = async () => {
      timer = null;
      const ids = [...dirty];
      dirty.clear();
      const fresh = await Promise.all(
        ids.map((id) => api<Run>('GET', `/v1/runs/${encodeURIComponent(id)}`).catch(() => null)),
      );
      if (stopped) return;
      setPage((p) => (p ? { ...p, data: withFresh(p.data, fresh, status, cursor) } : p));
    };
    const changed = (ev: Event) => {
      if (ev.type !== 'run.created' && !rows.current.some((r) => r.id === ev.run_id)) return;
      // A decision may carry a change to the App Spec: its name is read again (kept on show until then).
      if (ev.type === 'run.gate_resolved') runNames.forget(ev.run_id);
      dirty.add(ev.run_id);
      timer ??= setTimeout(() => void flush(), 16);
    };
    const handlers: Record<string, (d: any) => void> = { 'sandbox.reset': () => void load() };
    // Every kind of run event (the contract's list) is a change after which the run is read again.
    for (const kind of EVENT_KINDS) handlers[kind] = changed;
    const close = stream('/_sandbox/events', handlers, setLive);
    return () => {
      stopped = true;
      close();
      if (timer) clearTimeout(timer);
    };
  }, [status, cursor]);
  return { page, error, live };
}

/** The page's runs with the ones read again: changed in place (a new status announced), new ones on top of the
 * first page. A run that no longer has the status asked for leaves the list; the first page grows (the next
 * page's cursor still starts after its last run, so none is skipped). */
function withFresh(runs: Run[], fresh: Array<Run | null>, status: string, cursor: string | null): Run[] {
  let data = runs.slice();
  for (const run of fresh) {
    if (!run) continue;
    const i = data.findIndex((r) => r.id === run.id);
    const fits = !status || run.status === status;
    if (i >= 0) {
      if (data[i]!.status !== run.status)
        announce(
          `${run.id} is now ${run.status.replace('_', ' ')}${run.gate_pending ? `, gate ${run.gate_pending}` : ''}`,
        );
      data[i] = run;
    } else if (fits && !cursor) {
      data.unshift(run);
      announce(`new run ${run.id}`);
    }
  }
  if (status) data = data.filter((r) => r.status === status);
  return data;
}
