// The sandbox's routes as a table (method, pattern, handler) and a small matcher. A pattern is a path
// of literal segments and `{name}` parameters; a parameter may carry a literal suffix (`{gate}:approve`).
// A parameter written `{name*}` takes the rest of the path (the console's page routes itself). A path that
// matches with another method is 405 with the methods it has in `Allow`. Every request of the sandbox (the
// API, the admin API, signed files, the console) is routed by one of these, through `segments`.
import { Failure } from './failure.js';

export interface RouteMatch<H> {
  handler: H;
  params: Record<string, string>;
  /** The handler writes its own answer (a stream) rather than returning one. */
  stream: boolean;
}

interface Segment {
  literal?: string;
  param?: string;
  suffix?: string;
  rest?: boolean;
}

export interface Route<H> {
  method: string;
  pattern: string;
  handler: H;
  stream?: boolean;
}

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

export class Router<H> {
  private readonly routes: Array<{ method: string; segments: Segment[]; handler: H; stream: boolean }> = [];

  constructor(routes: Array<Route<H>>) {
    for (const r of routes)
      this.routes.push({ method: r.method, segments: parse(r.pattern), handler: r.handler, stream: r.stream ?? false });
  }

  /** Whether the method is one HTTP defines (RFC 9110 9.3) or a route takes: any other is 501, not 404/405. */
  knows(method: string): boolean {
    return HTTP_METHODS.has(method) || this.routes.some((r) => r.method === method);
  }

  /** The route for this method and path, the methods allowed on the path when none is for this one, or null. */
  match(method: string, segments: string[]): RouteMatch<H> | { allow: string[]; handlers: H[] } | null {
    const allow: string[] = [];
    const handlers: H[] = [];
    for (const r of this.routes) {
      const params = matchSegments(r.segments, segments);
      if (!params) continue;
      if (r.method === method || (method === 'HEAD' && r.method === 'GET'))
        return { handler: r.handler, params, stream: r.stream };
      allow.push(r.method);
      handlers.push(r.handler);
    }
    return allow.length ? { allow: [...new Set(allow)], handlers } : null;
  }
}

/** A path's segments, percent-decoded; a bad escape is the client's error (400 naming the path), never a 500. */
export function segments(path: string): string[] {
  return path
    .split('/')
    .slice(1)
    .map((s) => {
      if (!s.includes('%')) return s;
      try {
        return decodeURIComponent(s);
      } catch {
        throw new Failure('invalid_value', `the path ${JSON.stringify(path)} has a bad percent-escape`, 'path');
      }
    });
}

function parse(pattern: string): Segment[] {
  return pattern
    .split('/')
    .slice(1)
    .map((s) => {
      const m = /^\{(\w+)(\*?)\}(.*)$/.exec(s);
      if (m?.[2]) return { param: m[1]!, rest: true };
      return m ? { param: m[1]!, ...(m[3] ? { suffix: m[3] } : {}) } : { literal: s };
    });
}

function matchSegments(pattern: Segment[], segments: string[]): Record<string, string> | null {
  const rest = pattern.at(-1)?.rest === true;
  if (rest ? segments.length < pattern.length : pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const s = segments[i]!;
    if (p.rest) {
      params[p.param!] = segments.slice(i).join('/');
      break;
    }
    if (p.literal !== undefined) {
      if (p.literal !== s) return null;
      continue;
    }
    let value = s;
    if (p.suffix) {
      if (!s.endsWith(p.suffix) || s.length === p.suffix.length) return null;
      value = s.slice(0, -p.suffix.length);
    }
    if (value === '') return null;
    params[p.param!] = value;
  }
  return params;
}
