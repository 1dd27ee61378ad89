// The W3C trace context's traceparent as orc reads it (https://www.w3.org/TR/trace-context/): the client sends
// only a well-formed one, and the sandbox shows its trace id in its request log.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZEROS = /^0+$/;

/** Why a traceparent is not one to send (version 00, lowercase hex, ids not all zeros), or null when it is. */
export function traceparentProblem(value: string): string | null {
  const m = TRACEPARENT.exec(value);
  if (!m) return 'it is not 00-<32 hex>-<16 hex>-<2 hex>';
  if (ZEROS.test(m[1]!)) return 'its trace id is all zeros';
  if (ZEROS.test(m[2]!)) return 'its parent id is all zeros';
  return null;
}

/** The trace id of a well-formed traceparent, else null. */
export function traceIdOf(value: string | undefined): string | null {
  return value !== undefined && traceparentProblem(value) === null ? value.slice(3, 35) : null;
}

/** Why a tracestate is not sent (it goes only beside a traceparent that is): printable ASCII, at most 512. */
export function tracestateProblem(value: string): string | null {
  if (value.length > 512) return 'it is longer than 512 characters';
  return /^[\x20-\x7e]*$/.test(value) ? null : 'it holds characters a header cannot';
}
