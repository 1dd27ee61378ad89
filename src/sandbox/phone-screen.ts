// One screen of the App Spec drawn as a phone's screen (status bar, title, purpose, feature cards, button, tab
// bar) in the brand's palette, row by row: the shapes and text are laid out once, each row painted on demand.
import { contrast, rgbOf, type Rgb } from './colour.js';
import type { AppSpecInput } from '../contract/schemas.js';
import { fitLine, GLYPH_ROWS, LINE_UNITS, wrapLines, type TextLine } from './font.js';

/** What a screenshot is drawn from: captured when 04_design completed, so its bytes never change after. */
export interface ScreenshotInputs {
  name: string;
  screens: Array<{ id: string; title?: string | undefined; purpose?: string | undefined }>;
  features: string[];
  palette: string[];
}

/** Which drawing makes the screenshots: a description made by another (an older orc's) is stale. */
export const SCREENSHOTS_DRAWN = 2;

/** The spec's part a screenshot shows, copied so a later edit of the spec does not reach it. */
export function screenshotInputsOf(spec: AppSpecInput): ScreenshotInputs {
  return {
    name: spec.name,
    screens: (spec.screens ?? []).map(({ id, title, purpose }) => ({ id, title, purpose })),
    features: [...(spec.features ?? [])],
    palette: [...(spec.brand?.palette ?? [])],
  };
}

const DEFAULT_PALETTE = ['#3366CC', '#5588EE', '#22AA88', '#114477', '#F5F5F7'];
const INK_DARK: Rgb = [28, 28, 30];
const INK_LIGHT: Rgb = [242, 242, 247];

const inkOn = (c: Rgb): Rgb => (contrast(INK_DARK, c) >= contrast(INK_LIGHT, c) ? INK_DARK : INK_LIGHT);
const mix = (a: Rgb, b: Rgb, t: number): Rgb =>
  [0, 1, 2].map((i) => Math.round(a[i]! + (b[i]! - a[i]!) * t)) as unknown as Rgb;

/** The palette's roles: palette[0] the primary (headings, buttons), the last the background, the rest accents. */
function colours(palette: readonly string[]) {
  const p = (palette.length ? palette : DEFAULT_PALETTE).map(rgbOf);
  const primary = p[0]!;
  const bg = p.length > 1 ? p.at(-1)! : mix(inkOn(primary), [255, 255, 255], 0.5);
  const accents = p.length > 2 ? p.slice(1, -1) : [primary];
  const body = inkOn(bg);
  return {
    primary,
    bg,
    accents,
    body,
    onPrimary: inkOn(primary),
    muted: mix(body, bg, 0.45),
    surface: mix(bg, body, 0.05),
  };
}

/** Something painted: its rows, its colour, and for row y the spans it covers and a number naming how they look. */
interface Mark {
  top: number;
  bottom: number;
  color: Rgb;
  /** The colour as bytes, for fills. */
  fill: Buffer;
  spans(y: number): Array<[number, number]>;
  look(y: number): number;
}

/** A rectangle with round corners of radius r (r = half the height: a pill). */
function box(x0: number, y0: number, x1: number, y1: number, color: Rgb, r = 0): Mark {
  const inset = (y: number) => {
    const d = Math.max(y0 + r - y - 0.5, y - (y1 - r) + 0.5, 0);
    return d <= 0 ? 0 : Math.round(r - Math.sqrt(Math.max(0, r * r - d * d)));
  };
  return {
    top: y0,
    bottom: y1,
    color,
    fill: Buffer.from(color),
    spans: (y) => [[x0 + inset(y), x1 - inset(y)]],
    look: inset,
  };
}

/** A laid-out line of text at (x, y), `scale` pixels a unit; bold thickens each stroke by a third. */
function text(line: TextLine, x: number, y: number, scale: number, color: Rgb, bold = false): Mark {
  const extra = bold ? Math.max(1, Math.round(scale / 3)) : 0;
  const rows = Array.from({ length: GLYPH_ROWS }, (_, r) => {
    const spans: Array<[number, number]> = [];
    for (const { glyph, x: gx } of line.glyphs)
      for (let c = 0; c < 5; c++)
        if ((glyph.rows[r] ?? 0) & (16 >> c)) {
          const left = x + (gx + c - glyph.left) * scale;
          const last = spans.at(-1);
          if (last && last[1] >= left) last[1] = Math.max(last[1], left + scale + extra);
          else spans.push([left, left + scale + extra]);
        }
    return spans;
  });
  return {
    top: y,
    bottom: y + GLYPH_ROWS * scale,
    color,
    fill: Buffer.from(color),
    spans: (py) => rows[Math.floor((py - y) / scale)]!,
    look: (py) => Math.floor((py - y) / scale),
  };
}

export class PhoneScreen {
  private readonly marks: Mark[] = [];
  private readonly bgFill: Buffer;
  private readonly k: number;

  constructor(
    inputs: ScreenshotInputs,
    screenIndex: number,
    readonly width: number,
    readonly height: number,
  ) {
    const c = colours(inputs.palette);
    this.bgFill = Buffer.from(c.bg);
    this.k = width / 1320;
    this.statusBar(c);
    const top = this.heading(inputs, screenIndex, c);
    const tabTop = height - this.u(250);
    const buttonTop = tabTop - this.u(60) - this.u(170);
    this.features(inputs, screenIndex, c, top, buttonTop - this.u(40));
    this.button(screenIndex === inputs.screens.length - 1 ? 'Done' : 'Continue', buttonTop, c);
    this.tabBar(inputs, screenIndex, tabTop, c);
  }

  /** Base units (at 1320 pixels wide) in this screen's pixels, and a font scale for `units` of text height. */
  private u(v: number): number {
    return Math.round(v * this.k);
  }
  private s(v: number): number {
    return Math.max(1, Math.round(v * this.k));
  }

  private line(str: string, x: number, y: number, scale: number, color: Rgb, maxPx: number, bold = false): TextLine {
    const laid = fitLine(str, Math.floor(maxPx / scale));
    this.marks.push(text(laid, x, y, scale, color, bold));
    return laid;
  }

  private centred(str: string, cx: number, y: number, scale: number, color: Rgb, maxPx: number, bold = false): void {
    const laid = fitLine(str, Math.floor(maxPx / scale));
    this.marks.push(text(laid, cx - Math.round((laid.width * scale) / 2), y, scale, color, bold));
  }

  /** The time, the signal and the battery. */
  private statusBar(c: ReturnType<typeof colours>): void {
    const { width: w } = this;
    this.line('9:41', this.u(120), this.u(64), this.s(5), c.body, this.u(300), true);
    for (let i = 0; i < 4; i++) {
      const x = w - this.u(330) + i * this.u(26);
      this.marks.push(box(x, this.u(112) - this.u(14) - i * this.u(9), x + this.u(17), this.u(112), c.body, this.u(3)));
    }
    this.marks.push(box(w - this.u(210), this.u(68), w - this.u(112), this.u(112), c.body, this.u(12)));
    this.marks.push(box(w - this.u(205), this.u(73), w - this.u(117), this.u(107), c.bg, this.u(9)));
    this.marks.push(box(w - this.u(200), this.u(78), w - this.u(140), this.u(102), c.body, this.u(6)));
    this.marks.push(box(w - this.u(108), this.u(82), w - this.u(100), this.u(98), c.body, this.u(3)));
  }

  /** The app's name, the screen's title (large) and its purpose; returns where the content below starts. */
  private heading(inputs: ScreenshotInputs, screenIndex: number, c: ReturnType<typeof colours>): number {
    const m = this.u(72);
    const room = this.width - 2 * m;
    const screen = inputs.screens[screenIndex] ?? { id: `screen ${screenIndex + 1}` };
    this.line(inputs.name, m, this.u(200), this.s(5), c.primary, room, true);
    this.line(screen.title || screen.id, m, this.u(290), this.s(11), c.primary, room, true);
    const scale = this.s(5);
    const lines = wrapLines(screen.purpose ?? '', Math.floor(room / scale), 2);
    lines.forEach((l, i) => this.marks.push(text(l, m, this.u(430) + i * LINE_UNITS * scale, scale, c.muted)));
    return this.u(430) + 2 * LINE_UNITS * scale + this.u(40);
  }

  /** A highlight card with this screen's feature, then the features as a list, as many as fit above `bottom`. */
  private features(inputs: ScreenshotInputs, i: number, c: ReturnType<typeof colours>, top: number, bottom: number) {
    const m = this.u(72);
    const { width: w } = this;
    const n = inputs.features.length;
    const hero = n ? inputs.features[i % n]! : (inputs.screens[i]?.title ?? inputs.name);
    const pad = this.u(56);
    this.marks.push(box(m, top, w - m, top + this.u(380), c.primary, this.u(56)));
    this.line('TODAY', m + pad, top + pad, this.s(4), mix(c.onPrimary, c.primary, 0.3), w - 2 * m - 2 * pad);
    this.line(hero, m + pad, top + pad + this.u(80), this.s(8), c.onPrimary, w - 2 * m - 2 * pad, true);
    const track = [m + pad, top + this.u(270), w - m - pad, top + this.u(300)] as const;
    this.marks.push(box(...track, mix(c.primary, c.onPrimary, 0.3), this.u(15)));
    const done = track[0] + Math.round(((track[2] - track[0]) * (35 + ((i * 23) % 55))) / 100);
    this.marks.push(box(track[0], track[1], done, track[3], c.onPrimary, this.u(15)));
    let y = top + this.u(380) + this.u(60);
    if (n) this.line('FEATURES', m, y, this.s(4), c.muted, w - 2 * m);
    y += this.u(70);
    const cardH = this.u(180);
    for (let f = 0; f < n && y + cardH <= bottom; f++, y += cardH + this.u(28)) this.card(inputs.features[f]!, f, y, c);
  }

  private card(feature: string, f: number, y: number, c: ReturnType<typeof colours>): void {
    const m = this.u(72);
    const { width: w } = this;
    const h = this.u(180);
    const accent = c.accents[f % c.accents.length]!;
    this.marks.push(box(m, y, w - m, y + h, c.surface, this.u(40)));
    const icon = this.u(100);
    const iy = y + Math.round((h - icon) / 2);
    this.marks.push(box(m + this.u(36), iy, m + this.u(36) + icon, iy + icon, accent, this.u(28)));
    const scale = this.s(6);
    const letter = feature.trim().slice(0, 1).toUpperCase();
    this.centred(
      letter,
      m + this.u(36) + icon / 2,
      iy + Math.round((icon - 7 * scale) / 2),
      scale,
      inkOn(accent),
      icon,
    );
    const tx = m + this.u(36) + icon + this.u(44);
    const ty = y + Math.round((h - 7 * this.s(5)) / 2);
    this.line(feature, tx, ty, this.s(5), c.body, w - m - this.u(110) - tx);
    this.line('>', w - m - this.u(70), ty, this.s(5), c.muted, this.u(60), true);
  }

  private button(label: string, top: number, c: ReturnType<typeof colours>): void {
    const m = this.u(72);
    const h = this.u(170);
    this.marks.push(box(m, top, this.width - m, top + h, c.primary, Math.floor(h / 2)));
    const scale = this.s(6);
    this.centred(label, this.width / 2, top + Math.round((h - 7 * scale) / 2), scale, c.onPrimary, this.width, true);
  }

  /** A tab per screen (four and "More" past five), this one lit; the home indicator below. */
  private tabBar(inputs: ScreenshotInputs, screenIndex: number, top: number, c: ReturnType<typeof colours>): void {
    const { width: w, height: h } = this;
    this.marks.push(box(0, top, w, h, c.surface));
    this.marks.push(box(0, top, w, top + Math.max(1, this.u(2)), mix(c.bg, c.body, 0.15)));
    const titles = inputs.screens.map((s) => s.title || s.id);
    const tabs = titles.length > 5 ? [...titles.slice(0, 4), 'More'] : titles;
    const lit = Math.min(screenIndex, tabs.length - 1);
    const tabW = w / Math.max(1, tabs.length);
    tabs.forEach((title, i) => {
      const cx = Math.round(tabW * i + tabW / 2);
      const col = i === lit ? c.primary : c.muted;
      const icon = this.u(64);
      this.marks.push(box(cx - icon / 2, top + this.u(30), cx + icon / 2, top + this.u(30) + icon, col, this.u(18)));
      this.centred(title, cx, top + this.u(116), this.s(3), col, tabW - this.u(24), i === lit);
    });
    this.marks.push(box(w / 2 - this.u(210), h - this.u(38), w / 2 + this.u(210), h - this.u(23), c.body, this.u(8)));
  }

  /** A name for how row y looks: rows with the same name are the same pixels. */
  rowLook(y: number): string {
    let look = '';
    for (let i = 0; i < this.marks.length; i++) {
      const mk = this.marks[i]!;
      if (y >= mk.top && y < mk.bottom) look += `${i}:${mk.look(y)},`;
    }
    return look;
  }

  /** Paints row y's pixels (RGB) into `out` from `at`, clipped to the screen. */
  paintRow(y: number, out: Buffer, at: number): void {
    const { width } = this;
    out.fill(this.bgFill, at, at + width * 3);
    for (const mk of this.marks) {
      if (y < mk.top || y >= mk.bottom) continue;
      const [r, g, b] = mk.color;
      for (const [x0, x1] of mk.spans(y)) {
        const from = at + Math.max(0, Math.round(x0)) * 3;
        const to = at + Math.min(width, Math.round(x1)) * 3;
        // short spans (a glyph's stroke) are quicker set here than through a native fill
        if (to - from > 96) out.fill(mk.fill, from, to);
        else for (let i = from; i < to; i += 3) (out[i] = r), (out[i + 1] = g), (out[i + 2] = b);
      }
    }
  }
}
