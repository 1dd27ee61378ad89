// What a person calls a run: the app's name from its App Spec, else the start of its tagline or description
// (the pitch, as the spec tells it back). One rule for every view: the CLI's lists, watch, completion, the console.

/** At most this many characters: a name sits beside an id in a row. */
export const RUN_NAME_MAX = 32;

/** The name to show beside a run's id; null when its spec says nothing a person would know it by. */
export function runNameOf(spec: unknown): string | null {
  if (spec === null || typeof spec !== 'object') return null;
  const s = spec as Record<string, unknown>;
  for (const field of ['name', 'tagline', 'description']) {
    const value = s[field];
    if (typeof value !== 'string') continue;
    const text = value.replace(/\s+/g, ' ').trim();
    if (text) return shorten(text);
  }
  return null;
}

function shorten(text: string): string {
  const chars = [...text];
  if (chars.length <= RUN_NAME_MAX) return text;
  const cut = chars.slice(0, RUN_NAME_MAX - 1).join('');
  // At a word's end where there is one near, so "A tide table for sail…" reads as words.
  const space = cut.lastIndexOf(' ');
  return `${(space >= RUN_NAME_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
