// Colour arithmetic the sandbox's judgement and drawing share: #RRGGBB to channels and back, WCAG contrast, hue.

export type Rgb = readonly [number, number, number];

/** `#RRGGBB` (the App Spec's only colour form) as 0–255 channels; anything else reads as black. */
export function rgbOf(hex: string): Rgb {
  const n = Number.parseInt(/^#?([0-9a-f]{6})$/i.exec(hex)?.[1] ?? '000000', 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** Relative luminance, WCAG 2.2 (https://www.w3.org/TR/WCAG22/#dfn-relative-luminance). */
export function luminance(c: Rgb): number {
  const [r, g, b] = c.map((v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours, 1 to 21 (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio). */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The same, of two `#RRGGBB` colours. */
export const contrastRatio = (a: string, b: string): number => contrast(rgbOf(a), rgbOf(b));

/** Hue (0–360), saturation and lightness (0–1) of a colour. */
export function hslOf(hex: string): { h: number; s: number; l: number } {
  const [r, g, b] = rgbOf(hex).map((c) => c / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  const d = max - min;
  if (d === 0) return { h: 0, s: 0, l };
  const s = d / (1 - Math.abs(2 * l - 1));
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return { h: (h * 60 + 360) % 360, s, l };
}

/** `#RRGGBB` from hue (degrees), saturation and lightness (percent). */
export function hslHex(h: number, s: number, l: number): string {
  const sat = s / 100;
  const lig = l / 100;
  const k = (n: number) => (n + h / 30) % 12;
  const a = sat * Math.min(lig, 1 - lig);
  const f = (n: number) => lig - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  const byte = (x: number) =>
    Math.round(x * 255)
      .toString(16)
      .padStart(2, '0');
  return `#${[f(0), f(8), f(4)].map(byte).join('').toUpperCase()}`;
}

/** The smallest angle between two hues, 0–180. */
export function hueDistance(a: number, b: number): number {
  const d = Math.abs(a - b) % 360;
  return d > 180 ? 360 - d : d;
}
