// Webhooks: list, add (the secret shown once), remove, and each one's deliveries with redelivery.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { EVENT_KINDS } from '../contract/events.js';
import type { Delivery, Page, Webhook, WebhookWithSecret } from '../contract/schemas.js';
import { ApiError, api, query, type Shape } from './api.js';
import { clean } from './text.js';
import { Confirm, ErrorNote, Time, UrlText, announce } from './ui.js';

/** A webhook as its creation answers it: with its signing secret, shown this once. */
type NewWebhook = Shape<typeof WebhookWithSecret>;

export function WebhooksPage() {
  const [created, setCreated] = useState<NewWebhook | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const { hooks, error, load, removing, setRemoving, remove } = useWebhooks((id) => open === id && setOpen(null));
  return html`
    <h1 tabindex="-1">Webhooks</h1>
    <${AddWebhook} onCreated=${(w: NewWebhook) => (setCreated(w), void load())} />
    ${created?.secret ? html`<${SecretOnce} created=${created} hide=${() => setCreated(null)} />` : null}
    <${ErrorNote} error=${error} />
    <h2>Registered</h2>
    ${hooks === null && !error ? html`<p>Loading…</p>` : null}
    ${hooks && hooks.length === 0 ? html`<p>No webhooks yet.</p>` : null}
    ${
      hooks && hooks.length
        ? html`<table>
          <thead><tr><th scope="col">Webhook</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            ${hooks.map(
              (w) => html`<tr key=${w.id}>
                <th scope="row">${clean(w.id)}</th>
                <td class="url"><${UrlText} url=${w.url} /></td>
                <td>${w.events.map(clean).join(', ')}</td>
                <td>${clean(w.status)}</td>
                <td><${Time} iso=${w.created_at} /></td>
                <td class="actions">
                  <button type="button" aria-expanded=${open === w.id} aria-controls="deliveries" onClick=${() => setOpen(open === w.id ? null : w.id)}>Deliveries<span class="visually-hidden"> of ${clean(w.id)}</span></button>
                  <button type="button" class="danger" onClick=${() => setRemoving(w)}>Remove<span class="visually-hidden"> ${clean(w.id)}</span></button>
                </td>
              </tr>`,
            )}
          </tbody>
        </table>`
        : null
    }
    ${open ? html`<${Deliveries} key=${open} id=${open} />` : null}
    <${Confirm} open=${removing !== null} title="Remove this webhook?" confirm="Remove" danger=${true} onConfirm=${remove} onCancel=${() => setRemoving(null)}>
      <p>${clean(removing?.id)} (${clean(removing?.url)}) gets no more deliveries.</p>
    </${Confirm}>`;
}

/** The webhooks, and removing one (asked first: `removing` is the one being asked about). */
function useWebhooks(onRemoved: (id: string) => void) {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const load = () =>
    api<Page<Webhook>>('GET', `/v1/webhooks${query({ limit: 100 })}`).then(
      (p) => (setHooks(p.data), setError(null)),
      setError,
    );
  useEffect(() => {
    document.title = 'Webhooks · orc console';
    void load();
  }, []);
  const remove = async () => {
    const hook = removing!;
    setRemoving(null);
    try {
      await api('DELETE', `/v1/webhooks/${encodeURIComponent(hook.id)}`);
      announce(`webhook ${hook.id} removed`);
      onRemoved(hook.id);
      await load();
    } catch (e) {
      setError(e);
    }
  };
  return { hooks, error, load, removing, setRemoving, remove };
}

/** A new webhook's signing secret, shown this once. */
function SecretOnce({ created, hide }: { created: NewWebhook; hide: () => void }) {
  return html`<div class="secret" role="status">
          <h2>Webhook ${clean(created.id)} added</h2>
          <p>Its signing secret is shown <strong>this once</strong>; keep it where your receiver can read it:</p>
          <p><label for="secret">Signing secret</label> <input id="secret" class="code" readonly value=${clean(created.secret)} size="48" onFocus=${(e: Event) => (e.target as HTMLInputElement).select()} />
          <button type="button" onClick=${() => void navigator.clipboard?.writeText(created.secret).then(() => announce('secret copied'))}>Copy</button>
          <button type="button" onClick=${hide}>Done, hide it</button></p>
        </div>`;
}

function AddWebhook({ onCreated }: { onCreated: (w: NewWebhook) => void }) {
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(true);
  const [kinds, setKinds] = useState<string[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const w = await api<NewWebhook>('POST', '/v1/webhooks', { url: url.trim(), events: all ? ['*'] : kinds });
      setUrl('');
      setError(null);
      onCreated(w);
      announce(`webhook ${w.id} added`);
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const urlError = error?.field === 'url' ? error.message : null;
  const eventsError = error?.field === 'events' ? error.message : null;
  return html`<form class="card" onSubmit=${submit} novalidate>
    <h2>Add a webhook</h2>
    <div class="field"><label for="wh-url">Receiver URL</label>
      <input id="wh-url" type="url" required placeholder="https://example.com/hooks or http://127.0.0.1:8080/" value=${url} onInput=${(e: Event) => setUrl((e.target as HTMLInputElement).value)}
        aria-invalid=${urlError ? 'true' : undefined} aria-describedby=${urlError ? 'wh-url-error' : 'wh-url-help'} />
      ${urlError ? html`<p id="wh-url-error" class="field-error">${clean(urlError)}</p>` : html`<p id="wh-url-help" class="help">https://, or http:// to this machine.</p>`}
    </div>
    <fieldset aria-describedby=${eventsError ? 'wh-events-error' : undefined}><legend>Events</legend>
      <label class="check"><input type="checkbox" checked=${all} onChange=${(e: Event) => setAll((e.target as HTMLInputElement).checked)} /> Every event</label>
      ${
        !all
          ? EVENT_KINDS.map(
              (k) =>
                html`<label class="check"><input type="checkbox" checked=${kinds.includes(k)} onChange=${(e: Event) => setKinds((e.target as HTMLInputElement).checked ? [...kinds, k] : kinds.filter((x) => x !== k))} /> ${k}</label>`,
            )
          : null
      }
      ${eventsError ? html`<p id="wh-events-error" class="field-error">${clean(eventsError)}</p>` : null}
    </fieldset>
    ${error && !urlError && !eventsError ? html`<${ErrorNote} error=${error} />` : null}
    <button type="submit" class="primary">Add webhook</button>
  </form>`;
}

function Deliveries({ id }: { id: string }) {
  const [page, setPage] = useState<Page<Delivery> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const path = `/v1/webhooks/${encodeURIComponent(id)}/deliveries`;
  const load = () =>
    api<Page<Delivery>>('GET', `${path}${query({ limit: 50 })}`).then((p) => (setPage(p), setError(null)), setError);
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), 2000);
    return () => clearInterval(t);
  }, [id]);
  const redeliver = async (d: Delivery) => {
    try {
      await api('POST', `${path}/${encodeURIComponent(d.id)}:redeliver`);
      announce(`delivery ${d.id} queued again`);
      await load();
    } catch (e) {
      setError(e);
    }
  };
  return html`<section id="deliveries" aria-labelledby="deliveries-h">
    <h2 id="deliveries-h">Deliveries of ${clean(id)}</h2>
    <${ErrorNote} error=${error} />
    ${page && page.data.length === 0 ? html`<p>No deliveries yet.</p>` : null}
    ${
      page && page.data.length
        ? html`<table>
          <thead><tr><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Next attempt</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            ${page.data.map(
              (d) => html`<tr key=${d.id}>
                <th scope="row">${clean(d.id)}</th>
                <td>${clean(d.event_type)}</td>
                <td>${d.status === 'succeeded' ? '✓ succeeded' : d.status === 'failed' ? '✗ failed' : `… ${clean(d.status)}`}</td>
                <td>${d.attempts}</td>
                <td>${d.last_status_code ?? '—'}</td>
                <td><${Time} iso=${d.next_attempt_at} /></td>
                <td><button type="button" onClick=${() => void redeliver(d)}>Redeliver<span class="visually-hidden"> ${clean(d.id)}</span></button></td>
              </tr>`,
            )}
          </tbody>
        </table>`
        : null
    }
  </section>`;
}
