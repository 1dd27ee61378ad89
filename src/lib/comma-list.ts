// A list written with commas (`--events run.accepted,run.failed`, `--tools a,b`): each item trimmed, the empty
// ones dropped, each kept once in the order first written.
export function commaList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}
