// One way to say how long something takes, for every message and view: in prose ("3.5 s", "12 s",
// "5 min", "2 h": retries, waits, silences) or compact for a column that is redrawn ("0.4s", "12s",
// "3m05s", "1h02m": a stage's time, an ETA).
export function formatDuration(ms: number, { compact = false }: { compact?: boolean } = {}): string {
  const s = Math.max(0, ms) / 1000;
  if (compact) {
    if (s < 10) return `${s.toFixed(1)}s`;
    const t = Math.round(s);
    if (t < 60) return `${t}s`;
    const m = Math.floor(t / 60);
    if (m < 60) return `${m}m${String(t % 60).padStart(2, '0')}s`;
    return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
  }
  if (s < 10) return `${Math.round(s * 10) / 10} s`;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** "90s", "15m", "3h", "2d" or plain seconds ("45", "1.5") as milliseconds; null when it is none of those. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
    (m[2] ?? 's') as 'ms' | 's' | 'm' | 'h' | 'd'
  ];
  return n * unit;
}
