// Deterministic content for sandbox runs: the same seed and pitch always give the same spec and scores.
import { hash } from 'node:crypto';
import type { AppSpecInput, RunCreateParams, Scorecard } from '../contract/schemas.js';

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
  if (params.mode === 'idea' && params.idea) {
    const { pitch, audience, monetization } = params.idea;
    const rand = prng(seed, pitch);
    const name = nameFromText(pitch);
    return {
      text: pitch,
      magic: magicWords(pitch),
      spec: {
        name,
        tagline: pitch
          .replace(/#\w+/g, '')
          .trim()
          .split(/(?<=[.!?])\s/)[0]!
          .slice(0, 80),
        description: `${name} for ${audience}. ${pitch.replace(/#\w+/g, '').trim()}`,
        platforms: ['ios', 'android'],
        bundle_id: `com.example.${name.toLowerCase().replace(/[^a-z0-9]/g, '') || 'app'}`,
        category: pick(rand, CATEGORIES),
        audience,
        monetization,
        features: Array.from(new Set(Array.from({ length: 5 }, () => pick(rand, FEATURES)))),
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
        features: [pick(rand, FEATURES)],
        source: { repo_url: source, ref: 'main' },
      },
    };
  }
  return { text: source.name, magic: magicWords(source.name), spec: { platforms: ['ios'], ...source } };
}

export function brandFor(seed: number, text: string) {
  const rand = prng(seed, `brand:${text}`);
  const hue = Math.floor(rand() * 360);
  const palette = [0, 30, 180, 210, 0].map((shift, i) =>
    hslHex((hue + shift) % 360, i === 4 ? 10 : 55 + between(rand, 0, 30), i === 4 ? 96 : 35 + i * 8),
  );
  return { palette, typeface: pick(rand, TYPEFACES), voice: pick(rand, VOICES) };
}

export function screensFor(seed: number, text: string) {
  const rand = prng(seed, `screens:${text}`);
  const count = between(rand, 3, 5);
  return SCREENS.slice(0, count).map(([id, title, purpose]) => ({ id, title, purpose }));
}

/** Each check: its id, its title, and what its detail says when it fails and when it warns (never the title again). */
const PREFLIGHT = [
  [
    'icon',
    'App icon in every required size',
    'the 1024 × 1024 marketing icon is missing',
    'the 1024 × 1024 icon has an alpha channel; the store flattens it on black',
  ],
  [
    'privacy_manifest',
    'Privacy manifest declares collected data',
    'PrivacyInfo.xcprivacy declares no collected data types, though the app reads the email address',
    'NSPrivacyTracking is not set; declare false if the app does not track',
  ],
  [
    'launch_screen',
    'Launch screen present',
    'no launch storyboard in the bundle',
    'the launch screen shows text, which is not localised',
  ],
  [
    'screenshots',
    'Screenshots for 6.7" and 6.5" displays',
    'no 6.5" (1284 × 2778) set; one is required',
    'three screenshots at 6.7"; five show more of the app',
  ],
  [
    'bundle_id',
    'Bundle id matches the provisioning profile',
    'the profile is for another bundle id',
    'the profile expires within 30 days',
  ],
  [
    'age_rating',
    'Age rating questionnaire complete',
    'the questionnaire has unanswered items',
    'user-generated content is answered "none"; check the features',
  ],
  [
    'export_compliance',
    'Export compliance answered',
    'ITSAppUsesNonExemptEncryption is not set',
    'the app uses HTTPS only: exempt, say so in Info.plist to skip the question',
  ],
] as const;

export function scorecardFor(seed: number, text: string, magic: Magic): Scorecard {
  const rand = prng(seed, `score:${text}`);
  const beauty = magic.lowscore ? between(rand, 28, 52) : between(rand, 72, 97);
  const harmony = magic.lowscore ? between(rand, 25, 50) : between(rand, 70, 96);
  const score = Math.round((beauty + harmony) / 2);
  const failing = magic.lowscore ? new Set([PREFLIGHT[between(rand, 0, 2)]![0], 'screenshots']) : new Set<string>();
  const warning = PREFLIGHT[between(rand, 3, PREFLIGHT.length - 1)]![0];
  const checks = PREFLIGHT.map(([id, title, failed, warned]) => {
    const status = failing.has(id) ? 'fail' : id === warning && rand() < 0.6 ? 'warn' : 'pass';
    const detail = status === 'fail' ? failed : status === 'warn' ? warned : null;
    return { id, title, status, detail };
  });
  const preflightPassed = checks.every((c) => c.status !== 'fail');
  return {
    score: { beauty, harmony, score, total: 100 },
    passed: score >= 70 && preflightPassed,
    preflight: { passed: preflightPassed, checks },
  };
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

export function metadataFor(spec: AppSpecInput) {
  return {
    name: spec.name,
    subtitle: spec.tagline ?? null,
    description: spec.description ?? null,
    keywords: (spec.features ?? []).map((f) => f.toLowerCase()).slice(0, 8),
    primary_category: spec.category ?? null,
    age_rating: '4+',
    support_url: `https://example.com/${encodeURIComponent((spec.name || 'app').toLowerCase().replace(/\s+/g, '-'))}/support`,
    privacy_policy_url: `https://example.com/${encodeURIComponent((spec.name || 'app').toLowerCase().replace(/\s+/g, '-'))}/privacy`,
  };
}

function hslHex(h: number, s: number, l: number): string {
  const sat = s / 100;
  const lig = l / 100;
  const k = (n: number) => (n + h / 30) % 12;
  const a = sat * Math.min(lig, 1 - lig);
  const f = (n: number) => lig - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return `#${[f(0), f(8), f(4)]
    .map((x) =>
      Math.round(x * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')
    .toUpperCase()}`;
}
