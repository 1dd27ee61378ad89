// What the service says, made safe and short for the page. Preact escapes markup already; this makes
// control characters (an escape sequence in a pitch, a stray bell) visible instead of silently kept.
export function clean(value: unknown): string {
  const s = typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
  // C0 and C1 controls (but tab and newline), line and paragraph separators and bidi overrides, shown as
  // escapes: \x1b[31m reads as text, never as a colour or a reordered line.
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

export function ago(iso: string | null | undefined, now: number): string {
  if (!iso) return '';
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return clean(iso);
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/** A time as people read it, in their own zone: "24 Nov 2026, 11:53:42". */
export function when(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t)
    ? new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })
    : clean(iso);
}

export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A status as words and a symbol, so colour is never the only sign. */
export const STATUS_LABEL: Record<string, { symbol: string; text: string }> = {
  running: { symbol: '▶', text: 'running' },
  awaiting_approval: { symbol: '‖', text: 'awaiting approval' },
  accepted: { symbol: '✓', text: 'accepted' },
  rejected: { symbol: '✗', text: 'rejected' },
  failed: { symbol: '✗', text: 'failed' },
  canceled: { symbol: '■', text: 'canceled' },
};
