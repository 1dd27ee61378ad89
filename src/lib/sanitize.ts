// Text from the service goes through here before any terminal sees it (cf. GHSA-crc3-h8v6-qh57):
// escape sequences and control characters are removed, so a server cannot move the cursor,
// retitle the window, or hide text, and bidi controls are removed, so it cannot reorder what is shown
// (Trojan Source): the embeddings, overrides and isolates, and the marks LRM, RLM and ALM. Newlines and tabs stay.

// CSI, OSC (ended by BEL or ST), DCS/SOS/PM/APC strings, two-byte ESC sequences, then any other C0/C1 control.
const SEQUENCES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u009d[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[PX^_][^\u001b\u009c]*(?:\u001b\\|\u009c)?|[\u0090\u0098\u009e\u009f][^\u001b\u009c]*(?:\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function sanitize(text: string): string {
  return text.replace(SEQUENCES, '').replace(CONTROLS, '');
}

/** For a value shown on one line (an id, a name): newlines and tabs become spaces too. */
export function sanitizeLine(text: string): string {
  return sanitize(text).replace(/[\n\t]+/g, ' ');
}

/** What JSON text must hold for a string in it to carry a control: an escape that may be one, or one raw. */
const MAYBE_DIRTY = /\\[ubfr]|[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Whether a string carries anything sanitize() would take out. */
export function isClean(text: string): boolean {
  SEQUENCES.lastIndex = 0;
  CONTROLS.lastIndex = 0;
  const clean = !SEQUENCES.test(text) && !CONTROLS.test(text);
  SEQUENCES.lastIndex = 0;
  CONTROLS.lastIndex = 0;
  return clean;
}

/**
 * JSON from the service, parsed with every string in it (keys too) sanitised: the one place where text from
 * the service enters orc (a JSON body, an event's data), so nothing downstream can print it raw. `dirty` is
 * set when something was taken out (the text as it came is then not to be passed on).
 */
export function parseServiceJson(text: string, seen: { dirty?: boolean } = {}): unknown {
  // Nearly every body has nothing to take out: then it is parsed without the (slower) reviver.
  if (!MAYBE_DIRTY.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === 'string') return clean(value, seen);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const keys = Object.keys(value);
    if (keys.every(isClean)) return value;
    seen.dirty = true;
    return Object.fromEntries(keys.map((k) => [sanitize(k), (value as Record<string, unknown>)[k]]));
  });
}

function clean(value: string, seen: { dirty?: boolean }): string {
  if (isClean(value)) return value;
  seen.dirty = true;
  return sanitize(value);
}

/** A value drawn on one line of a view (a row, a live region): newlines and tabs become spaces. The text is
 * already safe (sanitised where it entered); this is layout only. */
export function oneLine(text: string): string {
  return text.replace(/[\n\t\r]+/g, ' ');
}
