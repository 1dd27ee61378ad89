// The sandbox's rules (CONTRACT.md, Additions: checks carry `field` and `hint`; the scorecard `components`),
// declared once: the pre-flight checks with the limit each enforces and where the limit comes from, and the parts
// of beauty and harmony with their weights. The sandbox judges by them (src/sandbox/rules.ts), `orc help
// sandbox` prints them, and docs/sandbox.md's table is kept equal to them by a test.

export interface PreflightRule {
  id: string;
  title: string;
  /** The App Spec's dotted path the check reads. */
  field: string;
  /** What fails the check, and what only warns. */
  fails: string;
  warns?: string;
  /** Where the limit comes from. */
  source: string;
  /** App review rejects a run whose spec fails this check, with this reason. */
  review?: string;
}

export const PREFLIGHT_RULE_TABLE: readonly PreflightRule[] = [
  {
    id: 'name',
    title: 'App name within 30 characters',
    field: 'name',
    fails: 'over 30 characters',
    source: 'App Store Connect, app information: name, 30 characters',
  },
  {
    id: 'subtitle',
    title: 'Subtitle within 30 characters',
    field: 'tagline',
    fails: 'over 30 characters',
    warns: 'none',
    source: 'App Store Connect, app information: subtitle, 30 characters',
  },
  {
    id: 'description',
    title: 'Description present, within 4,000 characters',
    field: 'description',
    fails: 'missing, or over 4,000 characters',
    source: 'App Store Connect, platform version information: description, 4,000 characters',
  },
  {
    id: 'keywords',
    title: 'Keywords within 100 characters',
    field: 'keywords',
    fails: 'over 100 characters joined by commas',
    warns: 'none',
    source: 'App Store Connect, platform version information: keywords, 100 characters',
  },
  {
    id: 'bundle_id',
    title: 'A reverse-DNS bundle id',
    field: 'bundle_id',
    fails: 'missing (the API refuses one that is not reverse-DNS)',
    source: 'Apple, CFBundleIdentifier',
  },
  {
    id: 'category',
    title: 'A category the App Store knows',
    field: 'category',
    fails: 'missing, or not one of the 26 categories',
    source: 'App Store categories (developer.apple.com/app-store/categories)',
  },
  {
    id: 'age_rating',
    title: 'An age rating',
    field: 'age_rating',
    fails: 'missing, or not one of 4+, 9+, 13+, 16+, 18+',
    source: 'App Store Connect, age ratings (the 2025 ratings)',
  },
  {
    id: 'privacy_policy',
    title: 'A privacy policy URL',
    field: 'privacy_policy_url',
    fails: 'missing, or not https://',
    source: 'App Review Guideline 5.1.1(i); App Store Connect asks it of every app',
    review: 'Guideline 5.1.1(i) - Legal - Privacy - Data Collection and Storage: the app has no privacy policy link.',
  },
  {
    id: 'support_url',
    title: 'A support URL',
    field: 'support_url',
    fails: 'missing, or not https://',
    source: 'App Store Connect, platform version information: support URL, required',
  },
  {
    id: 'terms',
    title: 'Terms of use where there is a subscription',
    field: 'terms_url',
    fails: 'monetization is subscription and terms_url is missing or not https://',
    source: 'App Review Guideline 3.1.2(c)',
    review:
      'Guideline 3.1.2(c) - Business - Payments - Subscriptions: the app offers a subscription without a link to its terms of use (EULA).',
  },
  {
    id: 'screenshots',
    title: 'Screenshots for 6.9" and 6.5" displays',
    field: 'screens',
    fails: 'no screens, or more than 10 (each screen is a screenshot at both sizes)',
    source: 'App Store Connect, screenshot specifications: 1 to 10 per display size',
  },
  {
    id: 'contrast',
    title: 'Text contrast at WCAG AA (4.5:1)',
    field: 'brand.palette',
    fails: 'under 3:1 between the first colour (text) and the last (background), or fewer than two colours',
    warns: '3:1 to 4.5:1 (enough for large text only)',
    source: 'WCAG 2.2, success criterion 1.4.3 Contrast (Minimum)',
  },
  {
    id: 'beta',
    title: 'No beta or demo wording',
    field: 'name',
    fails:
      'beta or demo, or a test, trial or preview version, build or edition, in name or tagline (field: the one that says it)',
    source: 'App Review Guideline 2.2',
    review: 'Guideline 2.2 - Performance - Beta Testing: the app is presented as a beta, test, demo or trial version.',
  },
];

export interface ScorePart {
  name: string;
  of: 'beauty' | 'harmony';
  /** Its share of its score; the weights of each score add up to 100. */
  weight: number;
  field: string;
  /** How its value (0–100) is found. */
  scores: string;
}

export const SCORE_PART_TABLE: readonly ScorePart[] = [
  {
    name: 'contrast',
    of: 'beauty',
    weight: 30,
    field: 'brand.palette',
    scores: 'text (first colour) on background (last): 1:1 scores 0, 7:1 or more 100, linear between',
  },
  {
    name: 'palette',
    of: 'beauty',
    weight: 15,
    field: 'brand.palette',
    scores: '3 to 5 colours 100; 2 or 6: 70; 7: 40; 1 or 8 and more: 20; none: 0',
  },
  { name: 'typeface', of: 'beauty', weight: 15, field: 'brand.typeface', scores: 'named 100, else 0' },
  {
    name: 'screens',
    of: 'beauty',
    weight: 25,
    field: 'screens',
    scores: '3 to 6 screens 100; 7 to 10: 80; 2: 60; 1: 30; more than 10: 50; none: 0',
  },
  {
    name: 'copy',
    of: 'beauty',
    weight: 15,
    field: 'name, tagline, description',
    scores: 'a third for each of name, subtitle and description present and within its length',
  },
  {
    name: 'hues',
    of: 'harmony',
    weight: 40,
    field: 'brand.palette',
    scores:
      'the share of pairs of chromatic colours (saturation 15% or more, not near black or white) whose hues are related: within 40°, or 120° ±15, 150° ±15, 180° ±20 apart; fewer than two such colours 100',
  },
  { name: 'voice', of: 'harmony', weight: 15, field: 'brand.voice', scores: 'named 100, else 0' },
  {
    name: 'features',
    of: 'harmony',
    weight: 20,
    field: 'features',
    scores: '3 to 7 features 100; 8 to 10: 70; 1 or 2: 60; more than 10: 40; none: 0',
  },
  {
    name: 'purpose',
    of: 'harmony',
    weight: 25,
    field: 'screens',
    scores: 'the share of screens with a purpose',
  },
];

/** The bar a scorecard passes: a score (the mean of beauty and harmony) of 70, and no failing check. */
export const PASS_SCORE = 70;
