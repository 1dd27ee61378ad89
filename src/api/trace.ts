// Which trace context a request to the service carries: the one of the MCP request being handled (its
// _meta), held for everything done while handling it; else the client's own (a command's TRACEPARENT).
// The one request path (http.ts) asks here for every attempt, so a stream, a retry or a download carries it too.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readTraceparent, tracestateProblem } from '../contract/trace.js';

export interface TraceContext {
  traceparent: string;
  tracestate?: string | undefined;
}

const handling = new AsyncLocalStorage<TraceContext>();

/** `fn` run with `trace` as the trace context of every request it makes (none given: as it stands). */
export function withTrace<T>(trace: TraceContext | null | undefined, fn: () => T): T {
  return trace ? handling.run(trace, fn) : fn();
}

/** A trace context from loose values (an environment, an MCP request's _meta): null without a traceparent. */
export function traceFrom(traceparent: unknown, tracestate: unknown): TraceContext | null {
  if (typeof traceparent !== 'string' || traceparent === '') return null;
  return { traceparent, ...(typeof tracestate === 'string' && tracestate !== '' ? { tracestate } : {}) };
}

/** The headers for the trace context in force (the handled request's, else `own`), and why any was left out. */
export function traceHeaders(own: TraceContext | null | undefined): {
  headers: Record<string, string>;
  dropped: string | null;
} {
  const trace = handling.getStore() ?? own;
  if (!trace) return { headers: {}, dropped: null };
  const read = readTraceparent(trace.traceparent);
  if ('problem' in read)
    return { headers: {}, dropped: `traceparent ${JSON.stringify(trace.traceparent)} not sent: ${read.problem}` };
  const headers: Record<string, string> = { traceparent: read.traceparent };
  const state = trace.tracestate;
  const badState = state === undefined ? null : tracestateProblem(state);
  if (state !== undefined && !badState) headers.tracestate = state;
  return { headers, dropped: badState && `tracestate not sent: ${badState}` };
}
