// The console's small shared parts: navigation, the status badge, errors, a confirmation dialog, and the
// live region through which changes are said to screen readers.
import { html } from 'htm/preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { STATUS_LABEL, ago as agoText, clean, when } from './text.js';

type Listener = (path: string) => void;
const listeners = new Set<Listener>();

export function navigate(href: string): void {
  history.pushState(null, '', href);
  for (const fn of listeners) fn(location.pathname + location.search);
}

export function useLocation(): string {
  const [path, setPath] = useState(location.pathname + location.search);
  useEffect(() => {
    const fn = (p: string) => setPath(p);
    const pop = () => fn(location.pathname + location.search);
    listeners.add(fn);
    addEventListener('popstate', pop);
    return () => {
      listeners.delete(fn);
      removeEventListener('popstate', pop);
    };
  }, []);
  return path;
}

export function Link(props: { href: string; children: unknown; current?: boolean; class?: string }) {
  const onClick = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  return html`<a href=${props.href} class=${props.class} aria-current=${props.current ? 'page' : undefined} onClick=${onClick}>${props.children}</a>`;
}

export function Status({ status }: { status: string }) {
  const label = STATUS_LABEL[status] ?? { symbol: '•', text: clean(status) };
  return html`<span class=${`status status-${/^[a-z_]+$/.test(status) ? status : 'other'}`}><span aria-hidden="true">${label.symbol} </span>${label.text}</span>`;
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as Partial<ApiError> & { message?: string };
  return html`<p class="error" role="alert"><strong>Error:</strong> ${clean(e.message ?? String(error))}${e.code && e.code !== 'network' ? html` <span class="code">(${clean(e.code)}${e.requestId ? `, request ${clean(e.requestId)}` : ''})</span>` : ''}</p>`;
}

/** Says a change to screen readers, politely (one shared live region). */
let sayTo: ((text: string) => void) | null = null;
export function announce(text: string): void {
  sayTo?.(text);
}

export function LiveRegion() {
  const [text, setText] = useState('');
  useEffect(() => {
    sayTo = (t) => setText((prev) => (prev === t ? `${t}\u00a0` : t));
    return () => {
      sayTo = null;
    };
  }, []);
  return html`<div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${text}</div>`;
}

/** A modal question with a safe default: the dialog element, so focus is trapped and Escape cancels. */
/** `tone`: the confirming button's look: primary (default), danger (it destroys), caution (against a warning). */
export function Confirm(props: {
  open: boolean;
  title: string;
  children?: unknown;
  confirm: string;
  danger?: boolean;
  tone?: 'caution';
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return html`<dialog ref=${ref} aria-labelledby=${titleId} onCancel=${(e: Event) => (e.preventDefault(), props.onCancel())}>
    <h2 id=${titleId}>${props.title}</h2>
    ${props.children}
    <div class="actions">
      <button type="button" autofocus onClick=${props.onCancel}>Cancel</button>
      <button type="button" class=${props.danger ? 'danger' : (props.tone ?? 'primary')} onClick=${props.onConfirm}>${props.confirm}</button>
    </div>
  </dialog>`;
}

/** Re-renders every `ms`, for ages that grow ("3m ago"). */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function Time({ iso, now }: { iso: string | null | undefined; now?: number }) {
  if (!iso) return html`<span>—</span>`;
  const text = now === undefined ? when(iso) : agoText(iso, now);
  return html`<time datetime=${clean(iso)} title=${clean(iso)}>${text}</time>`;
}

/** A URL that breaks only after a slash when its cell is narrow, never inside the host or the port. */
export function UrlText({ url }: { url: unknown }) {
  const parts = clean(url).split(/(?<=\/)/);
  return html`<span class="url-text">${parts.map((p, i) => (i ? html`<wbr />${p}` : p))}</span>`;
}

const HEX = /^#[0-9a-fA-F]{6}$/;

/** A palette's colours as swatches, each with its value as text (a swatch is drawn only for a #RRGGBB). */
export function Swatches({ palette, label = 'Palette' }: { palette: unknown; label?: string }) {
  if (!Array.isArray(palette) || palette.length === 0) return html`<p class="muted">No palette yet.</p>`;
  return html`<ul class="swatches" aria-label=${label}>
    ${palette.map((c) => html`<li><span class="swatch" aria-hidden="true" style=${HEX.test(String(c)) ? { backgroundColor: String(c) } : {}}></span><code>${clean(c)}</code></li>`)}
  </ul>`;
}
