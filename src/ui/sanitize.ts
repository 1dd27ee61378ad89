// Text from the service goes through here before any terminal sees it (cf. GHSA-crc3-h8v6-qh57):
// escape sequences and control characters are removed, so a server cannot move the cursor,
// retitle the window, or hide text, and bidi controls are removed, so it cannot reorder what is shown
// (Trojan Source): the embeddings, overrides and isolates, and the marks LRM, RLM and ALM. Newlines and tabs stay.

// CSI, OSC (ended by BEL or ST), DCS/SOS/PM/APC strings, two-byte ESC sequences, then any other C0/C1 control.
const SEQUENCES = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u009d[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[PX^_][^\u001b\u009c]*(?:\u001b\\|\u009c)?|[\u0090\u0098\u009e\u009f][^\u001b\u009c]*(?:\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function sanitize(text: string): string {
  return text.replace(SEQUENCES, '').replace(CONTROLS, '');
}

/** For a value shown on one line (an id, a name): newlines and tabs become spaces too. */
export function sanitizeLine(text: string): string {
  return sanitize(text).replace(/[\n\t]+/g, ' ');
}
