// The W3C trace context's traceparent as orc reads it (https://www.w3.org/TR/trace-context/): the client sends
// only a well-formed one (as version 00), and the sandbox shows its trace id in its request log.
const FIELDS = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/**
 * A traceparent as orc passes it on, or why it is not one to send. Version 00 is read whole; a later version
 * (not ff) by its first four fields, as the W3C says a participant that knows 00 does, and passed on as 00 (the
 * version orc speaks) with the same trace id and parent id, and of its flags the one 00 knows (sampled). Lowercase hex; neither id all zeros.
 */
export function readTraceparent(value: string): { traceparent: string } | { problem: string } {
  const version = value.slice(0, 2);
  const head = version !== '00' && value.length > 55 && value[55] === '-' ? value.slice(0, 55) : value;
  const m = FIELDS.exec(head);
  if (!m || version === 'ff')
    return { problem: 'it is not <version>-<32 hex>-<16 hex>-<2 hex> (version 00, or a later one but ff)' };
  if (ZEROS.test(m[2]!)) return { problem: 'its trace id is all zeros' };
  if (ZEROS.test(m[3]!)) return { problem: 'its parent id is all zeros' };
  // Version 00 knows one flag, sampled: a later version's other flags are not passed on as 00's (reserved there).
  const flags = version === '00' ? m[4] : (Number.parseInt(m[4]!, 16) & 1).toString(16).padStart(2, '0');
  return { traceparent: `00-${m[2]}-${m[3]}-${flags}` };
}

/** The trace id of a well-formed traceparent, else null. */
export function traceIdOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const read = readTraceparent(value);
  return 'traceparent' in read ? read.traceparent.slice(3, 35) : null;
}

/** Why a tracestate is not sent (it goes only beside a traceparent that is): printable ASCII, at most 512. */
export function tracestateProblem(value: string): string | null {
  if (value.length > 512) return 'it is longer than 512 characters';
  return /^[\x20-\x7e]*$/.test(value) ? null : 'it holds characters a header cannot';
}
