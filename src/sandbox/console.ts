// The web console's door: one-time links, sessions, and the static page, served by the sandbox under
// /console/. The page itself talks to the public /v1 API and the documented /_sandbox/ control API, as
// any client does; only how it authenticates differs (the session's cookie instead of the key, which
// never reaches the browser).
//
//   POST /_sandbox/console            (with the key) → { url, expires_at }: a link that works once, 10 min
//   GET  /console/login?token=T       trades the token for a session: a cookie (HttpOnly, SameSite=Strict)
//                                     and the session's own token, in the fragment of the redirect to
//                                     /console/ (the page keeps it in localStorage and drops the fragment)
//   GET  /console/…                   the page (any path under it: the page routes itself), its assets
//
// Every request must come to one of the sandbox's own host names (hosts.ts: a DNS-rebinding page names its
// own host). One that authenticates with the cookie must come from the page's own origin when the browser
// says one, and carry the session's token in X-Orc-Csrf (an event stream, which cannot send a header, in
// ?csrf=). Cookies ignore ports, so the cookie reaches every server on 127.0.0.1: the token is what another
// port cannot get, and no answer to the cookie alone ever holds it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { STANDALONE, asset, assetNames } from '../lib/assets.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../lib/clock.js';
import type { ConsoleLink } from '../contract/sandbox-control.js';
import { Failure } from './failure.js';

const TOKEN_TTL_MS = 10 * 60_000;
const MAX_TOKENS = 100;
const MAX_SESSIONS = 100;
const CSRF_HEADER = 'x-orc-csrf';

/** The look of the short pages the door answers itself (a link used or expired, sign in): the console's
 * colours and type, inline (no session, so no stylesheet), allowed by its hash alone. */
const NOTE_STYLE =
  ':root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--card:#f6f8fa}' +
  '@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--card:#161b22}}' +
  'body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}' +
  'main{max-width:36rem;margin:3rem auto;padding:0 1.2rem}.brand{font-weight:700;color:var(--muted)}h1{font-size:1.5rem}' +
  'code{font-family:ui-monospace,Menlo,Consolas,monospace;background:var(--card);padding:0.1rem 0.3rem;border-radius:4px}';
const NOTE_CSP = {
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${createHash('sha256').update(NOTE_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
};

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

interface Session {
  csrf: string;
  lastUsed: number;
}

/** The page's files are assets of the standalone executable, not a folder. */
const IN_EXECUTABLE = 'standalone:console/';

/** Where the built page is: dist/console, seen from the bundle's chunks (dist/chunks/) or from src/sandbox/. */
export function defaultConsoleDir(): string | null {
  if (STANDALONE) return assetNames('console/assets/')?.includes('console.js') ? IN_EXECUTABLE : null;
  for (const rel of ['../console/', '../../dist/console/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    try {
      readFileSync(`${dir}assets/console.js`);
      return dir;
    } catch {
      // not here
    }
  }
  return null;
}

export class ConsoleDoor {
  private readonly tokens = new Map<string, number>();
  private readonly sessions = new Map<string, Session>();
  private files: Map<string, { body: Buffer; type: string }> | null = null;
  private page: string | null = null;

  constructor(
    private readonly opts: {
      /** Real time: links and sessions expire on the wall clock, not the service's virtual one. */
      wallClock: Clock;
      dir: string | null;
      /** Whether a Host header names the sandbox (hosts.ts); and (once it listens) its port. */
      ownHost: (host: string | undefined) => boolean;
      port: () => number;
      /** https when the sandbox serves TLS (--tls). */
      scheme?: 'http' | 'https';
    },
  ) {}

  private get scheme(): string {
    return this.opts.scheme ?? 'http';
  }

  private get cookieName(): string {
    // Cookies are shared by every port of a host: one name per sandbox, so two sandboxes never mix sessions.
    // On https, __Host-: the browser takes it only Secure, for this host, on Path=/.
    return `${this.scheme === 'https' ? '__Host-' : ''}orc_console_${this.opts.port()}`;
  }

  /** The host names the console answers to: the sandbox's own (hosts.ts). */
  allowedHost(host: string | undefined): boolean {
    return this.opts.ownHost(host);
  }

  /** A fresh one-time link, for `orc sandbox console`. */
  mint(host: string | undefined): ConsoleLink {
    const now = this.opts.wallClock.now();
    for (const [t, exp] of this.tokens) if (exp <= now) this.tokens.delete(t);
    while (this.tokens.size >= MAX_TOKENS) this.tokens.delete(this.tokens.keys().next().value!);
    const token = randomBytes(24).toString('base64url');
    const expires = now + TOKEN_TTL_MS;
    this.tokens.set(token, expires);
    const at = host !== undefined && this.allowedHost(host) ? host : `127.0.0.1:${this.opts.port()}`;
    return { url: `${this.scheme}://${at}/console/login?token=${token}`, expires_at: new Date(expires).toISOString() };
  }

  /** The session a request's cookie names, or null when it carries none. Throws when it carries one that
   * is not (any more) valid, or when the request breaks the console's rules. */
  session(req: IncomingMessage, method: string): Session | null {
    const session = this.cookieSession(req);
    if (!session) return null;
    // A change needs the page's own origin (browsers send it on every POST, PATCH and DELETE).
    if (method !== 'GET' && method !== 'HEAD' && req.headers.origin === undefined) {
      throw new Failure('cross_origin_refused', 'a change through the console needs the Origin header');
    }
    const header = req.headers[CSRF_HEADER];
    // (new URL takes an absolute-form target whole, and an origin-form one against the stand-in base)
    const inQuery = () => new URL(req.url ?? '/', 'http://sandbox').searchParams.get('csrf');
    // In the URL only when an event stream is asked for (an EventSource sends Accept: text/event-stream and
    // cannot send a header of its own): anywhere else a token in a URL would reach logs and history for nothing.
    const stream = /\btext\/event-stream\b/.test(req.headers.accept ?? '');
    const token = typeof header === 'string' ? header : method === 'GET' && stream ? inQuery() : null;
    if (token === null || !same(token, session.csrf)) {
      throw new Failure('csrf_token_invalid', `a request through the console needs the session's token in X-Orc-Csrf`);
    }
    session.lastUsed = this.opts.wallClock.now();
    return session;
  }

  /** The session a request's cookie names, from the page's own origin; null when it carries none. */
  private cookieSession(req: IncomingMessage): Session | null {
    const sid = readCookie(req.headers.cookie, this.cookieName);
    if (sid === null) return null;
    if (!this.allowedHost(req.headers.host))
      throw new Failure(
        'cross_origin_refused',
        `the console answers only at its own address, not at ${String(req.headers.host)}`,
      );
    const session = this.sessions.get(sid);
    if (!session)
      throw new Failure(
        'console_session_invalid',
        'this console session has ended (the sandbox restarted, or it was reset); run `orc sandbox console` for a new link',
      );
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    if (
      (origin !== undefined && origin !== `${this.scheme}://${req.headers.host}`) ||
      (site !== undefined && site !== 'same-origin' && site !== 'none')
    )
      throw new Failure('cross_origin_refused', 'a request from another site is refused');
    return session;
  }

  /** Answers a request under /console. */
  serve(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: URLSearchParams): void {
    if (!this.allowedHost(req.headers.host))
      return this.html(
        res,
        403,
        'Wrong address',
        `<p>The console answers only at the address <code>orc sandbox console</code> prints.</p>`,
      );
    if (path === '/console/login') return this.login(res, query.get('token'));
    let session: Session | null;
    try {
      session = this.cookieSession(req);
    } catch {
      session = null;
    }
    if (!session)
      return this.html(
        res,
        401,
        'Sign in with a console link',
        '<p>Run <code>orc sandbox console</code> for a one-time link to this console.</p>',
      );
    if (!this.opts.dir)
      return this.html(
        res,
        503,
        'The console is not built',
        '<p>This copy of orc has no built console: run <code>npm run build</code>.</p>',
      );
    const files = this.load();
    if (path.startsWith('/console/assets/')) {
      const file = files.get(path.slice('/console/assets/'.length));
      if (!file) return this.html(res, 404, 'Not found', '<p>No such file.</p>');
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': file.type,
        'Content-Length': String(file.body.length),
        'Cache-Control': 'private, no-cache',
      });
      return void res.end(method === 'HEAD' ? undefined : file.body);
    }
    // (the page holds no token: the session's token reached it once, in the fragment of the login's redirect)
    const body = Buffer.from(this.page!);
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(body.length),
      'Cache-Control': 'no-store',
    });
    res.end(method === 'HEAD' ? undefined : body);
  }

  private login(res: ServerResponse, token: string | null): void {
    const now = this.opts.wallClock.now();
    const expires = token === null ? undefined : this.tokens.get(token);
    if (token !== null) this.tokens.delete(token);
    if (expires === undefined || expires <= now)
      return this.html(
        res,
        403,
        'This link has been used or has expired',
        '<p>A console link works once, within 10 minutes. Run <code>orc sandbox console</code> for a new one.</p>',
      );
    while (this.sessions.size >= MAX_SESSIONS) {
      let oldest: string | null = null;
      let at = Infinity;
      for (const [id, s] of this.sessions) if (s.lastUsed < at) (oldest = id), (at = s.lastUsed);
      this.sessions.delete(oldest!);
    }
    const sid = randomBytes(32).toString('base64url');
    const session = { csrf: randomBytes(24).toString('base64url'), lastUsed: now };
    this.sessions.set(sid, session);
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      Location: `/console/#csrf=${session.csrf}`,
      'Set-Cookie': `${this.cookieName}=${sid}; HttpOnly; SameSite=Strict; Path=/${this.scheme === 'https' ? '; Secure' : ''}`,
      'Cache-Control': 'no-store',
      'Content-Length': '0',
    });
    res.end();
  }

  private load(): Map<string, { body: Buffer; type: string }> {
    if (this.files) return this.files;
    const dir = this.opts.dir!;
    const inside = dir === IN_EXECUTABLE;
    const read = (rel: string) => (inside ? asset(`console/${rel}`)! : readFileSync(`${dir}${rel}`));
    const files = new Map<string, { body: Buffer; type: string }>();
    for (const name of inside ? assetNames('console/assets/')! : readdirSync(`${dir}assets`)) {
      const ext = /\.[a-z]+$/.exec(name)?.[0] ?? '';
      if (TYPES[ext]) files.set(name, { body: read(`assets/${name}`), type: TYPES[ext] });
    }
    this.page = read('index.html').toString('utf8');
    return (this.files = files);
  }

  private html(
    res: ServerResponse,
    status: number,
    title: string,
    body: string,
    extra: Record<string, string> = {},
  ): void {
    const text = Buffer.from(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · orc console</title><style>${NOTE_STYLE}</style></head><body><main><p class="brand">orc console</p><h1>${title}</h1>${body}</main></body></html>`,
    );
    res.writeHead(status, {
      ...SECURITY_HEADERS,
      ...NOTE_CSP,
      ...extra,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(text.length),
      'Cache-Control': 'no-store',
    });
    res.end(text);
  }
}

function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
