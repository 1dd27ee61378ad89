// Small formatting for people: relative times, absent values.
import { sanitizeLine } from './sanitize.js';

export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return sanitizeLine(iso); // not a time: shown as it came, made harmless
  const s = Math.round((now - t) / 1000);
  const abs = Math.abs(s);
  const say = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const span = abs < 45 ? say(abs, 'second') : abs < 2700 ? say(Math.round(abs / 60), 'minute') : abs < 64800 ? say(Math.round(abs / 3600), 'hour') : say(Math.round(abs / 86400), 'day');
  return s >= 0 ? `${span} ago` : `in ${span}`;
}

export function orDash(v: string | number | null | undefined): string {
  return v === null || v === undefined || v === '' ? '—' : String(v);
}
