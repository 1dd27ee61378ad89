// The sandbox's judgement: the pre-flight checks, the scores and app review's findings, each a documented
// function of the App Spec alone (docs/sandbox.md, "The rules"), so a person can predict what an edit changes.
import type { AppSpecInput, Scorecard } from '../contract/schemas.js';
import { PASS_SCORE, PREFLIGHT_RULE_TABLE, SCORE_PART_TABLE } from '../contract/sandbox-rules.js';
import { closest } from '../lib/suggest.js';
import { contrastRatio, hslHex, hslOf, hueDistance } from './colour.js';

type Spec = AppSpecInput;
type Status = 'pass' | 'warn' | 'fail';

/** One pre-flight check as the scorecard carries it (CONTRACT.md, Additions: `field`, `hint`; `suggestion`). */
export type Check = {
  id: string;
  title: string;
  status: Status;
  detail: string;
  /** The App Spec's dotted path the check reads. */
  field: string;
  /** What to change, when the check does not pass. */
  hint: string | null;
  /** A value at `field` that passes, when one can be made from the spec (a merge patch's worth of it). */
  suggestion: unknown;
};

/** One part of beauty or harmony: `value` 0–100, weighed into its score by `weight`. */
export type Component = {
  name: string;
  of: 'beauty' | 'harmony';
  value: number;
  weight: number;
  detail: string;
  field: string;
  hint: string | null;
  suggestion: unknown;
};

type Verdict = { status: Status; detail: string; hint?: string; suggestion?: unknown };

/** App Store Connect's limits (https://developer.apple.com/help/app-store-connect/reference/app-information). */
export const LIMITS = { name: 30, subtitle: 30, description: 4000, keywords: 100, screenshots: 10 } as const;
/** Apple's age ratings since 2025 (https://developer.apple.com/help/app-store-connect/reference/age-ratings-values-and-definitions). */
export const AGE_RATINGS = ['4+', '9+', '13+', '16+', '18+'] as const;
/** The App Store's categories (https://developer.apple.com/app-store/categories/). */
export const CATEGORIES = [
  'Books',
  'Business',
  'Developer Tools',
  'Education',
  'Entertainment',
  'Finance',
  'Food & Drink',
  'Games',
  'Graphics & Design',
  'Health & Fitness',
  'Kids',
  'Lifestyle',
  'Magazines & Newspapers',
  'Medical',
  'Music',
  'Navigation',
  'News',
  'Photo & Video',
  'Productivity',
  'Reference',
  'Shopping',
  'Social Networking',
  'Sports',
  'Travel',
  'Utilities',
  'Weather',
] as const;
/** WCAG 2.2 AA: 4.5:1 for text, 3:1 for large text (https://www.w3.org/TR/WCAG22/#contrast-minimum). */
export const CONTRAST = { aa: 4.5, large: 3, full: 7 } as const;
/** A beta, a demo, a test or trial version (Guideline 2.2); "test" and "trial" alone are ordinary words. */
const BETA_WORDS = /\b(beta|demo|(test|testing|trial|preview) (version|build|edition))\b/i;
const EVERY_BETA_WORD = new RegExp(BETA_WORDS.source, 'gi');

const chars = (s: string) => [...s].length;
const count = (n: number) => n.toLocaleString('en-US');
const quote = (s: string, max = 80) => JSON.stringify(chars(s) > max ? `${[...s].slice(0, max - 1).join('')}…` : s);
const slug = (spec: Spec) =>
  spec.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'app';
/** An https:// address a browser would open: it parses, and its host is a dotted name. */
const https = (u: unknown) =>
  typeof u === 'string' &&
  u.startsWith('https://') &&
  URL.canParse(u) &&
  new URL(u).protocol === 'https:' &&
  /^[^.]+(\.[^.]+)+$/.test(new URL(u).hostname);
/** C0 and C1 control characters: a suggestion is sent back as the spec's text, never with them. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** A text without control characters, cut at a word boundary to at most `max` characters (mid-word only when one word is longer). */
export function shorten(text: string, max: number): string {
  const t = text.replace(CONTROLS, '').trim();
  if (chars(t) <= max) return t;
  const cut = [...t].slice(0, max + 1).join('');
  const space = cut.lastIndexOf(' ');
  return (space > 0 ? cut.slice(0, space) : [...t].slice(0, max).join('')).replace(/[\s,.;:–-]+$/, '');
}

/**
 * A text for the name or the tagline that both checks reading that field pass: no beta wording (Guideline 2.2),
 * within `max` characters. A suggestion that fixed one check by failing the other would never converge.
 */
function storeText(text: string, max: number): string {
  const clean = text
    .replace(CONTROLS, '')
    .replace(EVERY_BETA_WORD, '')
    .replace(/\s{2,}/g, ' ')
    .replace(/^[\s–:-]+|[\s–-]+$/g, '');
  return shorten(clean, max) || 'My App';
}

/** The palette's text colour (its first) and background (its last), the roles the rules and screenshots use. */
export function paletteRoles(spec: Spec): { text: string; background: string } | null {
  const p = spec.brand?.palette ?? [];
  return p.length >= 2 ? { text: p[0]!, background: p[p.length - 1]! } : null;
}

/** A palette of five from one hue, related (analogous, complementary, split), its text at `contrast` (7:1) on its background. */
export function paletteFromHue(hue: number, saturation = 65, contrast: number = CONTRAST.full): string[] {
  const background = hslHex(hue, 10, 96);
  let l = 60;
  while (l > 5 && contrastRatio(hslHex(hue, saturation, l), background) < contrast) l -= 1;
  return [
    hslHex(hue, saturation, l),
    hslHex((hue + 30) % 360, saturation, 43),
    hslHex((hue + 180) % 360, saturation, 51),
    hslHex((hue + 210) % 360, saturation, 59),
    background,
  ];
}

const better = (spec: Spec) => paletteFromHue(Math.round(hslOf(spec.brand?.palette?.[0] ?? '#3366CC').h));

// ---------- pre-flight ----------

function nameRule(spec: Spec): Verdict {
  const n = chars(spec.name);
  if (n <= LIMITS.name) return { status: 'pass', detail: `${quote(spec.name)}: ${n} of ${LIMITS.name} characters` };
  const short = storeText(spec.name, LIMITS.name);
  return {
    status: 'fail',
    detail: `${quote(spec.name)} is ${n} characters; the App Store shows at most ${LIMITS.name}`,
    hint: `shorten name to ${LIMITS.name} characters or fewer, e.g. ${quote(short)}`,
    suggestion: short,
  };
}

function subtitleRule(spec: Spec): Verdict {
  const t = spec.tagline?.trim();
  if (!t)
    return {
      status: 'warn',
      detail: 'no subtitle: the App Store shows one under the name',
      hint: `set tagline to a phrase of at most ${LIMITS.subtitle} characters`,
      suggestion: storeText(spec.description ?? spec.name, LIMITS.subtitle),
    };
  const n = chars(t);
  if (n <= LIMITS.subtitle) return { status: 'pass', detail: `${quote(t)}: ${n} of ${LIMITS.subtitle} characters` };
  const short = storeText(t, LIMITS.subtitle);
  return {
    status: 'fail',
    detail: `the subtitle (tagline) is ${n} characters; the App Store takes ${LIMITS.subtitle}`,
    hint: `shorten tagline to ${LIMITS.subtitle} characters or fewer, e.g. ${quote(short)}`,
    suggestion: short,
  };
}

function descriptionRule(spec: Spec): Verdict {
  const d = spec.description?.trim() ?? '';
  const n = chars(d);
  if (n === 0)
    return {
      status: 'fail',
      detail: 'no description: the App Store requires one',
      hint: `write description: what ${spec.name} does and for whom, at most ${count(LIMITS.description)} characters`,
      suggestion: shorten(
        `${spec.name}${spec.audience ? ` for ${spec.audience}` : ''}. ${spec.tagline ?? ''}`,
        LIMITS.description,
      ),
    };
  if (n <= LIMITS.description)
    return { status: 'pass', detail: `${count(n)} of ${count(LIMITS.description)} characters` };
  return {
    status: 'fail',
    detail: `the description is ${count(n)} characters; the App Store takes ${count(LIMITS.description)}`,
    hint: `shorten description to ${count(LIMITS.description)} characters or fewer`,
    suggestion: shorten(d, LIMITS.description),
  };
}

function keywordsRule(spec: Spec): Verdict {
  const k = spec.keywords ?? [];
  const fromFeatures = keywordsFrom(spec);
  if (k.length === 0)
    return {
      status: 'warn',
      detail: 'no keywords: search finds the app by its name alone',
      hint: `set keywords: words people search for, ${LIMITS.keywords} characters in all (joined by commas)`,
      suggestion: fromFeatures.length ? fromFeatures : null,
    };
  const n = chars(k.join(','));
  if (n <= LIMITS.keywords)
    return { status: 'pass', detail: `${k.length} keywords, ${n} of ${LIMITS.keywords} characters` };
  return {
    status: 'fail',
    detail: `the keywords are ${n} characters joined by commas; the App Store takes ${LIMITS.keywords}`,
    hint: `drop keywords until they fit in ${LIMITS.keywords} characters`,
    suggestion: fitKeywords(k),
  };
}

/** Keywords a listing can start from: the features' words, as many as fit. */
export function keywordsFrom(spec: Spec): string[] {
  const words = (spec.features ?? []).map((f) =>
    f
      .toLowerCase()
      .replace(/[^\p{L}\p{N} ]+/gu, ' ')
      .trim(),
  );
  return fitKeywords([...new Set(words.filter(Boolean))]);
}

function fitKeywords(list: readonly string[]): string[] {
  const out: string[] = [];
  for (const k of list) if (chars([...out, k].join(',')) <= LIMITS.keywords) out.push(k);
  return out;
}

function bundleRule(spec: Spec): Verdict {
  if (spec.bundle_id) return { status: 'pass', detail: spec.bundle_id };
  const id = `com.example.${slug(spec).replace(/-/g, '')}`;
  return {
    status: 'fail',
    detail: 'no bundle id: the build cannot be signed or uploaded',
    hint: `set bundle_id to a reverse-DNS id, e.g. ${id}`,
    suggestion: id,
  };
}

function categoryRule(spec: Spec): Verdict {
  const c = spec.category;
  if (c && (CATEGORIES as readonly string[]).includes(c)) return { status: 'pass', detail: c };
  const near =
    (c &&
      closest(
        c.toLowerCase(),
        CATEGORIES.map((x) => x.toLowerCase()),
      )) ||
    null;
  const pickOne = near ? CATEGORIES.find((x) => x.toLowerCase() === near)! : 'Utilities';
  return {
    status: 'fail',
    detail: c ? `${quote(c)} is not an App Store category` : 'no category',
    hint: `set category to one of the App Store's ${CATEGORIES.length} categories, e.g. ${quote(pickOne)}`,
    suggestion: pickOne,
  };
}

function ageRule(spec: Spec): Verdict {
  const a = spec.age_rating;
  if (a && (AGE_RATINGS as readonly string[]).includes(a)) return { status: 'pass', detail: a };
  return {
    status: 'fail',
    detail: a ? `${quote(a)} is not an App Store age rating` : 'no age rating',
    hint: `set age_rating to one of ${AGE_RATINGS.join(', ')} (answer Apple's questionnaire)`,
    suggestion: '4+',
  };
}

function urlRule(key: 'privacy_policy_url' | 'support_url' | 'terms_url', what: string, path: string) {
  return (spec: Spec): Verdict => {
    const url = spec[key];
    if (https(url)) return { status: 'pass', detail: String(url) };
    return {
      status: 'fail',
      detail: url ? `${quote(String(url))} is not an https:// address` : `no ${what}`,
      hint: `set ${key} to the https:// address of the app's ${what}`,
      suggestion: `https://example.com/${slug(spec)}/${path}`,
    };
  };
}

function termsRule(spec: Spec): Verdict {
  if (spec.monetization !== 'subscription')
    return { status: 'pass', detail: `not needed: monetization is ${spec.monetization ?? 'not set'}` };
  return urlRule('terms_url', 'terms of use (EULA), which a subscription needs', 'terms')(spec);
}

function screenshotsRule(spec: Spec): Verdict {
  const screens = spec.screens ?? [];
  const n = screens.length;
  if (n >= 1 && n <= LIMITS.screenshots)
    return {
      status: 'pass',
      detail: `${n} screen${n === 1 ? '' : 's'}, each drawn at 6.9" (1320 × 2868) and 6.5" (1242 × 2688)`,
    };
  return {
    status: 'fail',
    detail:
      n === 0
        ? 'no screens: the App Store needs 1 to 10 screenshots at 6.9" and 6.5"'
        : `${n} screens; the App Store takes at most ${LIMITS.screenshots} screenshots per display size`,
    hint: n === 0 ? 'add screens (each an id, a title and a purpose)' : `keep at most ${LIMITS.screenshots} screens`,
    suggestion: n === 0 ? fullerScreens(spec) : screens.slice(0, LIMITS.screenshots),
  };
}

function contrastRule(spec: Spec): Verdict {
  const roles = paletteRoles(spec);
  if (!roles)
    return {
      status: 'fail',
      detail: 'the palette has fewer than two colours: no text colour on a background',
      hint: 'set brand.palette: the text colour first, the background last',
      suggestion: better(spec),
    };
  const ratio = contrastRatio(roles.text, roles.background);
  const said = `${ratio.toFixed(2)}:1 between the text colour ${roles.text} (brand.palette.0) and the background ${roles.background} (the last)`;
  if (ratio >= CONTRAST.aa) return { status: 'pass', detail: said };
  return {
    status: ratio >= CONTRAST.large ? 'warn' : 'fail',
    detail: `${said}; WCAG AA asks ${CONTRAST.aa}:1 for text${ratio >= CONTRAST.large ? ' (this passes for large text only)' : ''}`,
    hint: `darken the first colour or lighten the last in brand.palette until they reach ${CONTRAST.aa}:1`,
    suggestion: better(spec),
  };
}

function betaRule(spec: Spec): Verdict {
  const where = [
    ['name', spec.name],
    ['tagline', spec.tagline ?? ''],
  ].find(([, text]) => BETA_WORDS.test(text!));
  if (!where) return { status: 'pass', detail: 'no beta, demo, test or trial version wording' };
  const [key, text] = where as [string, string];
  return {
    status: 'fail',
    detail: `${key} ${quote(text)} says ${quote(text.match(BETA_WORDS)![0])}: App Review rejects betas and demos (Guideline 2.2)`,
    hint: `take ${quote(text.match(BETA_WORDS)![0])} out of ${key}; use TestFlight for betas`,
    suggestion: storeText(text, key === 'name' ? LIMITS.name : LIMITS.subtitle),
  };
}

const JUDGES: Record<string, (spec: Spec) => Verdict> = {
  name: nameRule,
  subtitle: subtitleRule,
  description: descriptionRule,
  keywords: keywordsRule,
  bundle_id: bundleRule,
  category: categoryRule,
  age_rating: ageRule,
  privacy_policy: urlRule('privacy_policy_url', 'privacy policy', 'privacy'),
  support_url: urlRule('support_url', 'support page', 'support'),
  terms: termsRule,
  screenshots: screenshotsRule,
  contrast: contrastRule,
  beta: betaRule,
};

/** Each pre-flight rule of the declared table (src/contract/sandbox-rules.ts), with its judgement. */
export const PREFLIGHT_RULES = PREFLIGHT_RULE_TABLE.map((rule) => ({
  ...rule,
  judge: JUDGES[rule.id]!,
  /** The field a failing verdict points at, when it is not `field` (the beta wording may be in the tagline). */
  fieldOf: rule.id === 'beta' ? (spec: Spec) => (BETA_WORDS.test(spec.name) ? 'name' : 'tagline') : undefined,
}));

/** The pre-flight of a spec: every rule, in the table's order. */
export function preflight(spec: Spec): Check[] {
  return PREFLIGHT_RULES.map((rule) => {
    const v = rule.judge(spec);
    const failing = v.status !== 'pass';
    return {
      id: rule.id,
      title: rule.title,
      status: v.status,
      detail: v.detail,
      field: failing && rule.fieldOf ? rule.fieldOf(spec) : rule.field,
      hint: failing ? (v.hint ?? null) : null,
      suggestion: failing ? (v.suggestion ?? null) : null,
    };
  });
}

/** What app review rejects a spec for, citing the guideline: the first failing check review enforces. */
export function reviewRejection(spec: Spec): string | null {
  for (const rule of PREFLIGHT_RULES)
    if (rule.review && rule.judge(spec).status === 'fail')
      return `${rule.review} (App Spec field ${rule.fieldOf?.(spec) ?? rule.field})`;
  return null;
}

// ---------- scores ----------

/** 100 within [lo, hi], falling off by the table outside it. */
const band = (n: number, steps: ReadonlyArray<[number, number]>) => steps.find(([max]) => n <= max)?.[1] ?? 0;

const SCREEN_PURPOSES: Record<string, string> = {
  onboarding: 'Explain the value in three swipes',
  home: 'What matters right now',
  detail: 'One item, in full',
  progress: 'Trends over weeks',
  settings: 'Account, notifications, privacy',
};

/** The spec's screens, each with a purpose, filled up to three: what the screens component asks for. */
export function fullerScreens(spec: Spec): Array<{ id: string; title: string; purpose: string }> {
  const out = (spec.screens ?? []).slice(0, 6).map((s) => ({
    ...s,
    title: s.title ?? s.id,
    purpose: s.purpose?.trim() || SCREEN_PURPOSES[s.id] || `What ${s.title ?? s.id} is for, in a line`,
  }));
  for (const [id, purpose] of Object.entries(SCREEN_PURPOSES)) {
    if (out.length >= 3) break;
    if (!out.some((s) => s.id === id)) out.push({ id, title: id[0]!.toUpperCase() + id.slice(1), purpose });
  }
  return out;
}

function contrastPart(spec: Spec): Omit<Component, 'of' | 'weight'> {
  const roles = paletteRoles(spec);
  const ratio = roles ? contrastRatio(roles.text, roles.background) : 1;
  const value = Math.round(Math.min(1, (ratio - 1) / (CONTRAST.full - 1)) * 100);
  return {
    name: 'contrast',
    value,
    detail: `text on background ${ratio.toFixed(2)}:1; 7:1 (WCAG AAA) scores 100, 1:1 scores 0`,
    field: 'brand.palette',
    hint: value < 100 ? 'raise the contrast of brand.palette.0 against the last colour toward 7:1' : null,
    suggestion: value < 100 ? better(spec) : null,
  };
}

function paletteSizePart(spec: Spec): Omit<Component, 'of' | 'weight'> {
  const n = spec.brand?.palette?.length ?? 0;
  const value =
    n >= 3 && n <= 5
      ? 100
      : band(n, [
          [0, 0],
          [1, 20],
          [2, 70],
          [6, 70],
          [7, 40],
          [Infinity, 20],
        ]);
  return {
    name: 'palette',
    value,
    detail: `${n} colours; 3 to 5 score 100`,
    field: 'brand.palette',
    hint: value < 100 ? 'keep 3 to 5 colours in brand.palette' : null,
    suggestion: value < 100 ? better(spec) : null,
  };
}

/** A part that asks only that the brand names something (its typeface, its voice). */
function namedPart(key: 'typeface' | 'voice', hint: string, suggestion: string) {
  return (spec: Spec): Omit<Component, 'of' | 'weight'> => {
    const named = spec.brand?.[key]?.trim();
    return {
      name: key,
      value: named ? 100 : 0,
      detail: named ? `set: ${quote(named)}` : `no ${key} chosen`,
      field: `brand.${key}`,
      hint: named ? null : hint,
      suggestion: named ? null : suggestion,
    };
  };
}

function screensPart(spec: Spec): Omit<Component, 'of' | 'weight'> {
  const n = spec.screens?.length ?? 0;
  const value =
    n >= 3 && n <= 6
      ? 100
      : band(n, [
          [0, 0],
          [1, 30],
          [2, 60],
          [10, 80],
          [Infinity, 50],
        ]);
  return {
    name: 'screens',
    value,
    detail: `${n} screen${n === 1 ? '' : 's'}; 3 to 6 score 100`,
    field: 'screens',
    hint: value < 100 ? 'give the app 3 to 6 screens' : null,
    suggestion: value < 100 ? fullerScreens(spec) : null,
  };
}

function copyPart(spec: Spec): Omit<Component, 'of' | 'weight'> {
  const fits = [
    chars(spec.name) <= LIMITS.name,
    !!spec.tagline?.trim() && chars(spec.tagline.trim()) <= LIMITS.subtitle,
    !!spec.description?.trim() && chars(spec.description) <= LIMITS.description,
  ];
  const value = Math.round((fits.filter(Boolean).length / 3) * 100);
  return {
    name: 'copy',
    value,
    detail: `${fits.filter(Boolean).length} of name, subtitle (tagline) and description within the store's lengths`,
    field: ['name', 'tagline', 'description'][fits.indexOf(false)] ?? 'name',
    hint: value < 100 ? 'fix the name, tagline and description checks of the pre-flight' : null,
    suggestion: null,
  };
}

/** Chromatic colours of the palette (not greys, not near black or white), by hue. */
function chromaticHues(spec: Spec): Array<{ hex: string; h: number }> {
  return (spec.brand?.palette ?? [])
    .map((hex) => ({ hex, ...hslOf(hex) }))
    .filter((c) => c.s >= 0.15 && c.l >= 0.1 && c.l <= 0.92);
}

/** Hue relations a designer names: analogous, triadic, split complementary, complementary. */
const RELATED = (d: number) => d <= 40 || Math.abs(d - 120) <= 15 || Math.abs(d - 150) <= 15 || Math.abs(d - 180) <= 20;

function huesPart(spec: Spec): Omit<Component, 'of' | 'weight'> {
  const hues = chromaticHues(spec);
  const pairs: Array<[string, string, number]> = [];
  for (let i = 0; i < hues.length; i++)
    for (let j = i + 1; j < hues.length; j++)
      pairs.push([hues[i]!.hex, hues[j]!.hex, Math.round(hueDistance(hues[i]!.h, hues[j]!.h))]);
  const clashing = pairs.filter(([, , d]) => !RELATED(d));
  const value = pairs.length === 0 ? 100 : Math.round(((pairs.length - clashing.length) / pairs.length) * 100);
  const first = clashing[0];
  return {
    name: 'hues',
    value,
    detail: first
      ? `${clashing.length} of ${pairs.length} colour pairs clash, e.g. ${first[0]} and ${first[1]} ${first[2]}° apart (related: within 40°, or 120°, 150°, 180° apart)`
      : `${pairs.length} colour pairs, all analogous, triadic, split or complementary`,
    field: 'brand.palette',
    hint: value < 100 ? 'choose colours whose hues are within 40° or 120°, 150° or 180° apart' : null,
    suggestion: value < 100 ? better(spec) : null,
  };
}

function featuresPart(spec: Spec): Omit<Component, 'of' | 'weight'> {
  const f = spec.features ?? [];
  const n = f.length;
  const value =
    n >= 3 && n <= 7
      ? 100
      : band(n, [
          [0, 0],
          [2, 60],
          [10, 70],
          [Infinity, 40],
        ]);
  return {
    name: 'features',
    value,
    detail: `${n} feature${n === 1 ? '' : 's'}; 3 to 7 score 100`,
    field: 'features',
    hint: value < 100 ? (n > 7 ? 'keep the 7 features that matter most' : 'list 3 to 7 features') : null,
    suggestion: value < 100 && n > 7 ? f.slice(0, 7) : null,
  };
}

function purposePart(spec: Spec): Omit<Component, 'of' | 'weight'> {
  const screens = spec.screens ?? [];
  const withPurpose = screens.filter((s) => s.purpose?.trim()).length;
  const value = screens.length ? Math.round((withPurpose / screens.length) * 100) : 0;
  return {
    name: 'purpose',
    value,
    detail:
      screens.length === 1
        ? `${withPurpose} of 1 screen says what it is for`
        : `${withPurpose} of ${screens.length} screens say what they are for`,
    field: 'screens',
    hint: value < 100 ? 'give every screen a purpose' : null,
    suggestion: value < 100 ? fullerScreens(spec) : null,
  };
}

const PART_OF: Record<string, (spec: Spec) => Omit<Component, 'of' | 'weight'>> = {
  contrast: contrastPart,
  palette: paletteSizePart,
  typeface: namedPart('typeface', 'name a typeface in brand.typeface', 'Inter'),
  screens: screensPart,
  copy: copyPart,
  hues: huesPart,
  voice: namedPart('voice', 'say how the app speaks in brand.voice', 'friendly and plain-spoken'),
  features: featuresPart,
  purpose: purposePart,
};

/** Every component of beauty and harmony, in the table's order. */
export function components(spec: Spec): Component[] {
  return SCORE_PART_TABLE.map(({ of, weight, name: part }) => {
    const { name, value, ...rest } = PART_OF[part]!(spec);
    return { name, of, value, weight, ...rest };
  });
}

const weighed = (parts: Component[], of: Component['of']) => {
  const mine = parts.filter((p) => p.of === of);
  return Math.round(mine.reduce((s, p) => s + p.value * p.weight, 0) / mine.reduce((s, p) => s + p.weight, 0));
};

/** A scorecard as the rules make it (CONTRACT.md's, with `field`, `hint`, `suggestion` and `components`). */
export type JudgedScorecard = {
  score: Scorecard['score'];
  passed: boolean;
  preflight: { passed: boolean; checks: Check[] };
  components: Component[];
};

/** The scorecard of a spec: the same spec always gives the same scorecard. */
export function scorecardOf(spec: Spec): JudgedScorecard {
  const parts = components(spec);
  const beauty = weighed(parts, 'beauty');
  const harmony = weighed(parts, 'harmony');
  const score = Math.round((beauty + harmony) / 2);
  const checks = preflight(spec);
  const preflightPassed = checks.every((c) => c.status !== 'fail');
  return {
    score: { beauty, harmony, score, total: 100 },
    passed: score >= PASS_SCORE && preflightPassed,
    preflight: { passed: preflightPassed, checks },
    components: parts,
  };
}
