// Small formatting for people: relative times, absent values.
import { formatDuration } from '../lib/duration.js';
import { sanitizeLine } from '../lib/sanitize.js';

export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return sanitizeLine(iso); // not a time: shown as it came, made harmless
  const s = Math.round((now - t) / 1000);
  const abs = Math.abs(s);
  const say = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const span =
    abs < 45
      ? say(abs, 'second')
      : abs < 2700
        ? say(Math.round(abs / 60), 'minute')
        : abs < 64800
          ? say(Math.round(abs / 3600), 'hour')
          : say(Math.round(abs / 86400), 'day');
  return s >= 0 ? `${span} ago` : `in ${span}`;
}

/** A time of day as people read it at a glance: "14:02" today (local time), "2026-11-22 14:02" another day. */
export function clockTime(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return sanitizeLine(iso);
  const at = new Date(t);
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
  return day(at) === day(new Date(now)) ? time : `${day(at)} ${time}`;
}

export function orDash(v: string | number | null | undefined): string {
  return v === null || v === undefined || v === '' ? '—' : String(v);
}

/** 1536 → "1.5 KiB"; bytes below 1 KiB as they are. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) (v /= 1024), i++;
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** Seconds left, compact ("45s", "3m05s", "1h02m"); "—" when unknown. */
export function formatEta(s: number | null): string {
  if (s === null || !Number.isFinite(s) || s < 0) return '—';
  return formatDuration(Math.ceil(s) * 1000, { compact: true });
}
