// `orc api`: one request (or every page of a list) through the one request path: the profile's key, the
// key rules, retries with the same Idempotency-Key, Retry-After. The answer's body goes to stdout as it
// came (formatted and sanitised at a terminal); a non-2xx answer goes to stderr with exit 3.
import { STATUS_TEXT, type RawAnswer } from '../../api/http.js';
import { PageWalk } from '../../api/pages.js';
import type { Context } from '../context.js';
import { EXIT, RefusedError, RetoldError, UsageError } from '../../exit/errors.js';
import { sanitize, sanitizeLine } from '../../lib/sanitize.js';
import { parseJsonInput, readInput } from '../input.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import { METHODS, type api as def } from './command.js';

/** Headers orc owns: the key comes from the profile, the framing from the body. */
const OWN_HEADERS = new Set(['authorization', 'host', 'content-length', 'transfer-encoding', 'connection']);
const QUERY_METHODS = new Set(['GET', 'HEAD', 'DELETE']);

type Args = ArgsOf<typeof def>;

export default async function request(ctx: Context, args: Args, flags: FlagsOf<typeof def>): Promise<number> {
  const io = ctx.io;
  // `orc api /v1/runs`, as `gh api` is typed: a first word that is a path (no method holds a /) is a GET of it.
  const [methodRaw, pathRaw] = args[1] === undefined && args[0]?.includes('/') ? ['GET', args[0]] : args;
  if (flags.oas !== '3.1' && !flags.openapi)
    throw new UsageError('--oas chooses the version of --openapi; add --openapi');
  if (flags.openapi) {
    if (methodRaw !== undefined)
      throw new UsageError('--openapi prints the document and sends nothing: it takes no method or path');
    const { openApiDocument } = await import('../../contract/openapi.js');
    io.writeJson(openApiDocument(ctx.version, flags.oas));
    return 0;
  }
  if (methodRaw === undefined || pathRaw === undefined) {
    const usage = 'missing <path>: `orc api [METHOD] <path>` (GET when the method is left out), or --openapi';
    throw Object.assign(new UsageError(usage), { field: '<path>' });
  }
  const method = methodRaw.toUpperCase();
  if (!(METHODS as readonly string[]).includes(method))
    throw new UsageError(`<method>: ${JSON.stringify(methodRaw)} is not one of ${METHODS.join(', ')}`);
  const headers = parseHeaders(flags.header);
  if (flags.data !== undefined && flags.field.length)
    throw new UsageError('--data and -f/--field both give the body; use one');
  if (flags.paginate && method !== 'GET') throw new UsageError('--paginate follows the pages of a GET');
  const { query, body } = await queryAndBody(ctx, method, flags, headers);

  const target = await ctx.target();
  const path = targetOf(pathRaw, target.baseUrl);
  const api = await ctx.api();
  // Every POST carries one key, the same on every retry (the service honours it on every POST), as `run create`.
  const idempotencyKey = method === 'POST' ? (headers['idempotency-key'] ?? crypto.randomUUID()) : undefined;
  const send = (extra: Record<string, string> = {}) =>
    api.http.raw({
      method,
      target: path,
      query: { ...query, ...extra },
      headers: { accept: 'application/json', ...headers },
      ...(body ? { body } : {}),
      ...(idempotencyKey ? { idempotencyKey } : {}),
    });

  if (flags.paginate) return allPages(ctx, send, method, path, flags.include);
  const answer = await send();
  if (flags.include) include(ctx, answer);
  if (answer.status < 200 || answer.status >= 300) return failed(ctx, method, path, answer);
  printBody(ctx, answer);
  return 0;
}

/** -f fields as the query of a GET, HEAD or DELETE, else as a JSON body; or the body of --data. */
async function queryAndBody(ctx: Context, method: string, flags: FlagsOf<typeof def>, headers: Record<string, string>) {
  const fields = flags.field.map(parseField);
  const query: Record<string, string> = {};
  let body: { bytes: string; contentType: string } | undefined;
  if (fields.length && QUERY_METHODS.has(method)) for (const f of fields) query[f.key] = f.raw;
  else if (fields.length) body = { bytes: JSON.stringify(nest(fields)), contentType: 'application/json' };
  if (flags.data !== undefined) body = { bytes: await readData(ctx, flags.data), contentType: 'application/json' };
  if (body && headers['content-type']) body.contentType = headers['content-type'];
  return { query, body };
}

/** --paginate: every page of a list followed, its items written as one JSON array. */
async function allPages(
  ctx: Context,
  send: (extra?: Record<string, string>) => Promise<RawAnswer>,
  method: string,
  path: string,
  includeHeaders: boolean | undefined,
): Promise<number> {
  const items: unknown[] = [];
  const walk = new PageWalk(path);
  let cursor: string | null = null;
  do {
    const answer = await send(cursor ? { cursor } : {});
    if (includeHeaders) include(ctx, answer);
    if (answer.status < 200 || answer.status >= 300) return failed(ctx, method, path, answer);
    const page = parseJson(answer.text) as { data?: unknown; next_cursor?: unknown; has_more?: unknown } | undefined;
    if (!page || !Array.isArray(page.data))
      throw new RetoldError(`${method} ${path} is not a list: its answer has no "data" array to follow`, EXIT.usage);
    items.push(...page.data);
    cursor = walk.next(
      page.data.length,
      page.has_more !== false,
      typeof page.next_cursor === 'string' ? page.next_cursor : null,
    );
  } while (cursor);
  ctx.io.writeJson(items);
  return 0;
}

/** The answer's body on stdout: through --jq, formatted and sanitised at a terminal, byte-exact when piped. */
function printBody(ctx: Context, answer: RawAnswer): void {
  const io = ctx.io;
  if (answer.text === '') return;
  const json = parseJson(answer.text);
  if (io.filter && json !== undefined) return void io.writeJson(json);
  // At a terminal every byte from the service goes through the sanitiser (JSON formatted first); piped, the
  // body is passed on byte-exact.
  if (io.stdoutIsTTY)
    io.out(sanitize(json !== undefined && !io.json ? JSON.stringify(json, null, 2) : answer.text.replace(/\n$/, '')));
  else io.streams.stdout.write(answer.text.endsWith('\n') ? answer.text : `${answer.text}\n`);
}

function failed(ctx: Context, method: string, path: string, answer: RawAnswer): never {
  const json = parseJson(answer.text);
  const shown = json !== undefined ? JSON.stringify(json, null, 2) : answer.text;
  if (shown) ctx.io.streams.stderr.write(`${sanitize(shown)}\n`);
  const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
  const what = [
    `HTTP ${answer.status}`,
    typeof code === 'string' ? code : null,
    answer.requestId ? `request id ${answer.requestId}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  throw new RefusedError(`${method} ${sanitizeLine(path)} answered ${sanitizeLine(what)}`);
}

function include(ctx: Context, answer: RawAnswer): void {
  const lines = [`HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) lines.push(`${name}: ${v}`);
  }
  ctx.io.streams.stderr.write(`${lines.map(sanitizeLine).join('\n')}\n\n`);
}

/** A path on the service, or an absolute URL of the service's own origin: the key goes nowhere else. */
function targetOf(raw: string, baseUrl: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s]/.test(raw))
    throw new UsageError(`<path>: ${JSON.stringify(raw)} holds spaces or control characters; percent-encode them`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new UsageError(`<path>: ${JSON.stringify(raw)} is not a URL`);
    }
    const base = new URL(baseUrl);
    if (url.origin !== base.origin)
      throw new UsageError(
        `<path>: ${url.origin} is not the service's address (${base.origin}); orc sends your key only there, so nothing was sent`,
        'Give a path (/v1/runs) or a URL of the service itself.',
      );
    return url.href;
  }
  return raw.startsWith('/') ? raw : `/${raw}`;
}

function parseHeaders(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    const value = colon > 0 ? h.slice(colon + 1).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new UsageError(`--header ${JSON.stringify(h)}: write it as 'Name: value'`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value))
      throw new UsageError(`--header ${name}: the value holds control characters`);
    if (OWN_HEADERS.has(name.toLowerCase()))
      throw new UsageError(
        `--header ${name}: orc sets this one itself${name.toLowerCase() === 'authorization' ? ' (the key comes from the profile, --profile or ORC_API_KEY)' : ''}`,
      );
    out[name.toLowerCase()] = value;
  }
  return out;
}

interface Field {
  key: string;
  path: string[];
  raw: string;
  value: unknown;
}

/** `a.b=12` → a number; `true`, `false`, `null` typed; anything else a string. */
function parseField(text: string): Field {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`-f ${JSON.stringify(text)}: write it as key=value (idea.pitch="A habit tracker")`);
  const key = text.slice(0, eq);
  const path = key.split('.');
  if (path.some((p) => p === ''))
    throw new UsageError(`-f ${JSON.stringify(text)}: a key is names joined by dots, with no empty part`);
  const bad = path.find((p) => p === '__proto__' || p === 'constructor' || p === 'prototype');
  if (bad) throw new UsageError(`-f ${key}: the key ${JSON.stringify(bad)} is not allowed`);
  const raw = text.slice(eq + 1);
  const value =
    raw === 'true'
      ? true
      : raw === 'false'
        ? false
        : raw === 'null'
          ? null
          : /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(raw)
            ? Number(raw)
            : raw;
  return { key, path, raw, value };
}

function nest(fields: Field[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const f of fields) {
    let node = root;
    f.path.forEach((part, i) => {
      const last = i === f.path.length - 1;
      const here = Object.hasOwn(node, part) ? node[part] : undefined;
      if (last) {
        if (here !== undefined) throw new UsageError(`-f ${f.key}: given twice, or also as an object by another -f`);
        node[part] = f.value;
        return;
      }
      if (here === undefined) node[part] = {};
      else if (here === null || typeof here !== 'object')
        throw new UsageError(`-f ${f.key}: ${f.path.slice(0, i + 1).join('.')} is already a value, not an object`);
      node = node[part] as Record<string, unknown>;
    });
  }
  return root;
}

async function readData(ctx: Context, source: string): Promise<string> {
  const file = source === '-' ? '-' : source.startsWith('@') ? source.slice(1) : null;
  const label = file === null ? '--data' : `--data ${source}`;
  const text = file === null ? source : await readInput(ctx, file, label);
  parseJsonInput(text, label);
  return text;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
