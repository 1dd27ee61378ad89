// Deterministic content for sandbox runs: the same seed and pitch always give the same spec and scores.
import { hash } from 'node:crypto';
import type { AppSpecInput, RunCreateParams } from '../contract/schemas.js';
import { LIMITS, keywordsFrom, paletteFromHue, shorten } from './rules.js';

export interface Magic {
  fail: boolean;
  reject: boolean;
  lowscore: boolean;
}

/** Magic words steer a run, like a payment API's test card numbers. */
export function magicWords(text: string): Magic {
  const t = text.toLowerCase();
  return { fail: t.includes('#fail'), reject: t.includes('#reject'), lowscore: t.includes('#lowscore') };
}

/** A small PRNG (mulberry32) seeded from a hash, so every choice below is reproducible. */
export function prng(seed: number, text: string): () => number {
  let a = hash('sha256', `${seed}:${text}`, 'buffer').readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
const between = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
/** `n` different entries of a list, in the order drawn. */
const sample = <T>(rand: () => number, list: readonly T[], n: number): T[] => {
  const left = [...list];
  return Array.from({ length: Math.min(n, left.length) }, () => left.splice(Math.floor(rand() * left.length), 1)[0]!);
};

const STOP = new Set([
  'a',
  'an',
  'the',
  'for',
  'of',
  'to',
  'and',
  'with',
  'that',
  'app',
  'in',
  'on',
  'my',
  'your',
  'who',
  'is',
  'it',
]);
const CATEGORIES = [
  'Health & Fitness',
  'Productivity',
  'Lifestyle',
  'Education',
  'Finance',
  'Food & Drink',
  'Travel',
  'Social Networking',
  'Utilities',
];
const FEATURES = [
  'Offline mode',
  'Push reminders',
  'Home screen widget',
  'Dark mode',
  'Sign in with Apple',
  'Streaks and badges',
  'Shared lists',
  'Apple Health sync',
  'iCloud backup',
  'Weekly insights',
  'Accessibility: Dynamic Type',
  'Localized in 6 languages',
];
const TYPEFACES = ['Inter', 'SF Pro Rounded', 'Manrope', 'DM Sans', 'Source Serif', 'IBM Plex Sans', 'Nunito'];
const VOICES = [
  'warm and encouraging',
  'calm and precise',
  'playful and bold',
  'friendly and plain-spoken',
  'confident and minimal',
];
const SCREENS = [
  ['onboarding', 'Welcome', 'Explain the value in three swipes'],
  ['home', 'Today', 'What matters right now'],
  ['detail', 'Details', 'One item, in full'],
  ['progress', 'Progress', 'Trends over weeks'],
  ['settings', 'Settings', 'Account, notifications, privacy'],
] as const;

/** A name from the pitch's first meaningful words ("A habit tracker for runners" -> "Habit Tracker"). */
export function nameFromText(text: string): string {
  const words = text
    .replace(/#\w+/g, ' ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !STOP.has(w.toLowerCase()));
  const name = words
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase())
    .join(' ');
  return name || 'Untitled App';
}

function repoName(url: string): string {
  const last =
    url
      .replace(/[#?].*$/, '')
      .replace(/\.git$/, '')
      .split(/[/:]/)
      .filter(Boolean)
      .pop() ?? 'app';
  return nameFromText(last.replace(/[-_]/g, ' '));
}

export interface RunSeed {
  /** What magic words and scores are derived from: the pitch, or the spec name / source in ship mode. */
  text: string;
  magic: Magic;
  spec: AppSpecInput;
}

/** The App Spec a new run starts with: brand and screens are filled in later by their stages. */
export function initialSpec(params: RunCreateParams, seed: number): RunSeed {
  const made = firstSpec(params, seed);
  return made.magic.lowscore ? { ...made, spec: withFixableProblems(made.spec) } : made;
}

function firstSpec(params: RunCreateParams, seed: number): RunSeed {
  if (params.mode === 'idea' && params.idea) {
    const { pitch, audience, monetization } = params.idea;
    const rand = prng(seed, pitch);
    const name = nameFromText(pitch);
    return {
      text: pitch,
      magic: magicWords(pitch),
      spec: {
        name,
        tagline: shorten(
          pitch
            .replace(/#\w+/g, '')
            .trim()
            .split(/(?<=[.!?])\s/)[0]!,
          LIMITS.subtitle,
        ),
        description: `${name} for ${audience}. ${pitch.replace(/#\w+/g, '').trim()}`,
        platforms: ['ios', 'android'],
        bundle_id: `com.example.${name.toLowerCase().replace(/[^a-z0-9]/g, '') || 'app'}`,
        category: pick(rand, CATEGORIES),
        audience,
        monetization,
        features: sample(rand, FEATURES, 4),
      },
    };
  }
  const source = params.source!;
  if (typeof source === 'string') {
    const rand = prng(seed, source);
    const name = repoName(source);
    return {
      text: source,
      magic: magicWords(source),
      spec: {
        name,
        platforms: ['ios'],
        bundle_id: `com.example.${name.toLowerCase().replace(/[^a-z0-9]/g, '') || 'app'}`,
        category: pick(rand, CATEGORIES),
        features: sample(rand, FEATURES, 3),
        source: { repo_url: source, ref: 'main' },
      },
    };
  }
  return { text: source.name, magic: magicWords(source.name), spec: { platforms: ['ios'], ...source } };
}

export function brandFor(seed: number, text: string) {
  const rand = prng(seed, `brand:${text}`);
  const hue = Math.floor(rand() * 360);
  // Related hues, the text at 4.5:1 to 8:1 on the background: a generated brand passes the pre-flight, and its
  // contrast part scores 58 to 100 (rules.ts), as brands do.
  const palette = paletteFromHue(hue, 55 + between(rand, 0, 30), 4.5 + between(rand, 0, 35) / 10);
  return { palette, typeface: pick(rand, TYPEFACES), voice: pick(rand, VOICES) };
}

export function screensFor(seed: number, text: string) {
  const rand = prng(seed, `screens:${text}`);
  const count = between(rand, 3, 5);
  return SCREENS.slice(0, count).map(([id, title, purpose]) => ({ id, title, purpose }));
}

export function appIdFor(seed: number, text: string, runId: string): string {
  const rand = prng(seed, `app:${text}:${runId}`);
  return String(between(rand, 1_000_000_000, 1_999_999_999));
}

export function rejectionReasonFor(seed: number, text: string): string {
  const rand = prng(seed, `reason:${text}`);
  return pick(rand, [
    'Guideline 4.3(a) - Design - Spam: the app duplicates the content and functionality of others.',
    'Guideline 2.1 - Performance - App Completeness: the app crashed on launch during review.',
    'Guideline 5.1.1 - Legal - Privacy: the app collects data without a purpose string.',
  ]);
}

/** The store listing, read from the spec the rules judge (rules.ts): what would go to App Store Connect. */
export function metadataFor(spec: AppSpecInput) {
  return {
    name: spec.name,
    subtitle: spec.tagline ?? null,
    description: spec.description ?? null,
    keywords: spec.keywords ?? [],
    primary_category: spec.category ?? null,
    age_rating: spec.age_rating ?? null,
    support_url: spec.support_url ?? null,
    privacy_policy_url: spec.privacy_policy_url ?? null,
    ...(spec.terms_url ? { terms_url: spec.terms_url } : {}),
  };
}

const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'app';

/**
 * What the concept stage writes of a store listing when the spec leaves it out: a subtitle, keywords, a
 * category, an age rating and the URLs a listing needs. What the spec has is never replaced.
 */
export function listingFor(spec: AppSpecInput, seed: number, text: string): Partial<AppSpecInput> {
  const rand = prng(seed, `listing:${text}`);
  const base = `https://example.com/${slugOf(spec.name)}`;
  return {
    tagline: shorten(spec.description ?? spec.name, LIMITS.subtitle),
    description: `${spec.name}${spec.audience ? ` for ${spec.audience}` : ''}.`,
    category: pick(rand, CATEGORIES),
    keywords: keywordsFrom(spec),
    age_rating: '4+',
    privacy_policy_url: `${base}/privacy`,
    support_url: `${base}/support`,
    ...(spec.monetization === 'subscription' ? { terms_url: `${base}/terms` } : {}),
    ...spec,
  };
}

/**
 * `#lowscore`: a spec with problems the docs list, each fixable with `spec edit` (docs/sandbox.md): a name over
 * 30 characters, a category the store does not know, one screen with no purpose, twelve features, and a palette
 * of seven clashing colours whose text is 2:1 on its background.
 */
export function withFixableProblems(spec: AppSpecInput): AppSpecInput {
  return {
    ...spec,
    name: `${spec.name} – Your Everyday Companion App`,
    category: 'Apps',
    features: [...FEATURES],
    screens: [{ id: 'home', title: 'Home' }],
    brand: { ...spec.brand, palette: ['#8FA3B8', '#C77F4A', '#4FB06D', '#B455C9', '#C9A33D', '#6C8FD6', '#DDE3EA'] },
  };
}
