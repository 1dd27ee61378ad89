// The sandbox's routes as a table (method, pattern, handler) and a small matcher. A pattern is a path
// of literal segments and `{name}` parameters; a parameter may carry a literal suffix (`{gate}:approve`).
// A path that matches with another method is 405 with the methods it has in `Allow`.
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
}

export interface Route<H> {
  method: string;
  pattern: string;
  handler: H;
  stream?: boolean;
}

export class Router<H> {
  private readonly routes: Array<{ method: string; segments: Segment[]; handler: H; stream: boolean }> = [];

  constructor(routes: Array<Route<H>>) {
    for (const r of routes) this.routes.push({ method: r.method, segments: parse(r.pattern), handler: r.handler, stream: r.stream ?? false });
  }

  /** The route for this method and path, the methods allowed on the path when none is for this one, or null. */
  match(method: string, segments: string[]): RouteMatch<H> | { allow: string[] } | null {
    const allow: string[] = [];
    for (const r of this.routes) {
      const params = matchSegments(r.segments, segments);
      if (!params) continue;
      if (r.method === method || (method === 'HEAD' && r.method === 'GET')) return { handler: r.handler, params, stream: r.stream };
      allow.push(r.method);
    }
    return allow.length ? { allow: [...new Set(allow)] } : null;
  }
}

function parse(pattern: string): Segment[] {
  return pattern
    .split('/')
    .slice(1)
    .map((s) => {
      const m = /^\{(\w+)\}(.*)$/.exec(s);
      return m ? { param: m[1]!, ...(m[2] ? { suffix: m[2] } : {}) } : { literal: s };
    });
}

function matchSegments(pattern: Segment[], segments: string[]): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const s = segments[i]!;
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
