// The console's one way to the service: the public /v1 API and the sandbox's /_sandbox/ control API, with
// the session cookie (sent by the browser) and the session's token, sent on every request. The key never
// reaches here.
import type { ErrorBody } from '../contract/errors.js';

const csrf = sessionToken();

/** The token came once, in the fragment of the login's redirect (never in an answer a cookie alone gets):
 * kept in localStorage, which no other origin (another port) can read, and the fragment dropped. */
function sessionToken(): string {
  const given = /^#csrf=([\w-]+)$/.exec(location.hash)?.[1];
  if (given) {
    localStorage.setItem('orc-console-csrf', given);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return localStorage.getItem('orc-console-csrf') ?? '';
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field: string | null,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

/** Told when the session is gone (the sandbox restarted): the page says how to get a new link. */
export let onSessionEnded: () => void = () => {};
export function whenSessionEnds(fn: () => void): void {
  onSessionEnded = fn;
}

export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  headers['X-Orc-Csrf'] = csrf;
  if (body !== undefined) headers['Content-Type'] = contentType;
  if (method === 'POST' && path === '/v1/runs') headers['Idempotency-Key'] = crypto.randomUUID();
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, 'network', 'The sandbox cannot be reached: is it still running?', null, null);
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: said below
  }
  if (!res.ok) {
    // (whatever came: each part of the envelope is checked for as it is used)
    const e = (json as { error?: Partial<ErrorBody> } | null)?.error;
    if (res.status === 401) onSessionEnded();
    throw new ApiError(
      res.status,
      e?.code ?? 'http_error',
      e?.message ?? `HTTP ${res.status}`,
      e?.field ?? null,
      res.headers.get('X-Request-Id'),
    );
  }
  return json as T;
}

export function query(params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** An event stream: each listed event's JSON data to its handler. Returns how to close it. */
export function stream(
  path: string,
  handlers: Record<string, (data: any) => void>,
  onState?: (open: boolean) => void,
): () => void {
  // (an EventSource sends no header of its own: the token goes in the query)
  const url = `${path}${path.includes('?') ? '&' : '?'}csrf=${encodeURIComponent(csrf)}`;
  const source = new EventSource(url, { withCredentials: true });
  for (const [type, fn] of Object.entries(handlers))
    source.addEventListener(type, (e) => {
      let data: unknown;
      try {
        data = JSON.parse((e as MessageEvent<string>).data);
      } catch {
        return;
      }
      fn(data);
    });
  source.onopen = () => onState?.(true);
  source.onerror = () => onState?.(false);
  return () => source.close();
}

/** The type a schema of src/contract reads, as z.infer gives it (zod itself stays out of the page). */
export type Shape<S extends { _zod: { output: unknown } }> = S['_zod']['output'];
