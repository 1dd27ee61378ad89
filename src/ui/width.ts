// Cutting a line to a number of visible characters: colour codes (SGR) do not count and are kept.

/** The first `width` visible characters of `line`, with `mark` (… or nothing) where it was cut. */
export function clipVisible(line: string, width: number, mark = ''): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\u001b') {
      const end = line.indexOf('m', i);
      if (end > 0) {
        out += line.slice(i, end + 1);
        i = end;
        continue;
      }
    }
    if (visible >= width) return `${out}${mark}${out.includes('\u001b') ? '\u001b[0m' : ''}`;
    out += line[i];
    visible++;
  }
  return out;
}
