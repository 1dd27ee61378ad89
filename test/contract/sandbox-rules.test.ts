// The sandbox's rules are declared once: docs/sandbox.md's tables and `orc help sandbox` say what the table says,
// and the sandbox judges every rule and part of it (nothing judged that is not documented, nothing documented
// that is not judged).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PASS_SCORE, PREFLIGHT_RULE_TABLE, SCORE_PART_TABLE } from '../../src/contract/sandbox-rules.js';
import { components, preflight, PREFLIGHT_RULES } from '../../src/sandbox/rules.js';
import { runOrc } from '../helpers/run.js';

const docs = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');

describe('the sandbox rules table', () => {
  it('docs/sandbox.md has a row for each check and each part, as declared', () => {
    for (const r of PREFLIGHT_RULE_TABLE)
      expect(docs).toContain(
        `| \`${r.id}\` | \`${r.field}\` | ${r.fails} | ${r.warns ?? ''} | ${r.source} | ${r.review ? r.review.split(':')[0] : ''} |`,
      );
    for (const p of SCORE_PART_TABLE)
      expect(docs).toContain(`| \`${p.name}\` | ${p.of} | ${p.weight} | \`${p.field}\` | ${p.scores} |`);
    const rows = docs.split('\n').filter((l) => /^\| `[a-z_]+` \|/.test(l));
    expect(rows).toHaveLength(PREFLIGHT_RULE_TABLE.length + SCORE_PART_TABLE.length);
  });

  it('the sandbox judges exactly the declared checks and parts; the weights of each score add up to 100', () => {
    const spec = { name: 'X' };
    expect(preflight(spec).map((c) => [c.id, c.title])).toEqual(PREFLIGHT_RULE_TABLE.map((r) => [r.id, r.title]));
    expect(PREFLIGHT_RULES.every((r) => typeof r.judge === 'function')).toBe(true);
    expect(components(spec).map((c) => [c.name, c.of, c.weight])).toEqual(
      SCORE_PART_TABLE.map((p) => [p.name, p.of, p.weight]),
    );
    for (const of of ['beauty', 'harmony'])
      expect(SCORE_PART_TABLE.filter((p) => p.of === of).reduce((s, p) => s + p.weight, 0)).toBe(100);
  });

  it('`orc help sandbox` prints every check and part; --json gives the tables', async () => {
    const text = await runOrc(['help', 'sandbox']);
    expect(text.exitCode).toBe(0);
    for (const r of PREFLIGHT_RULE_TABLE)
      expect(text.stdout).toMatch(new RegExp(`^  ${r.id} +${r.field.replace('.', '\\.')}: fails when`, 'm'));
    for (const p of SCORE_PART_TABLE)
      expect(text.stdout).toMatch(new RegExp(`^  ${p.name} +${p.of} ×${p.weight}`, 'm'));
    const json = await runOrc(['help', 'sandbox', '--json']);
    const data = JSON.parse(json.stdout);
    expect(data.preflight_rules.map((r: { id: string }) => r.id)).toEqual(PREFLIGHT_RULE_TABLE.map((r) => r.id));
    expect(data.score_parts).toHaveLength(SCORE_PART_TABLE.length);
    expect(data.pass_score).toBe(PASS_SCORE);
  });
});
