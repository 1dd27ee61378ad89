// "Did you mean …?" for a slip of the keyboard: one candidate, or none. A word that begins a single candidate
// is that one (`stat` is `status`, not `start`); else the nearest by edit distance, if near enough.
export function closest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase();
  const prefixed = candidates.filter((c) => w.length >= 2 && c.startsWith(w));
  if (prefixed.length === 1) return prefixed[0]!;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = distance(w, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(word.length / 4)) ? best : null;
}

/** "; did you mean x?" or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  return near ? `; did you mean ${near}?` : '';
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
