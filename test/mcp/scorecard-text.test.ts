// What get_scorecard tells a model in its text (src/mcp/server.ts): why the scorecard did not pass, each reason
// with the App Spec field, what to change there and a value that passes. The tool called directly, over an Api
// that answers a given scorecard (the e2e test mcp-gate-loop drives the real one).
import { describe, expect, it } from 'vitest';
import type { Api } from '../../src/api/index.js';
import type { Scorecard } from '../../src/contract/schemas.js';
import { systemClock } from '../../src/lib/clock.js';
import { toolDefs } from '../../src/mcp/server.js';

async function scorecardText(card: Scorecard): Promise<string> {
  const api = { runs: { scorecard: async () => card } } as unknown as Api;
  const tool = toolDefs(api, systemClock).find((t) => t.name === 'get_scorecard')!;
  const answer = await tool.run({ run_id: 'run_1' }, {} as never);
  expect(answer.data).toEqual({ scorecard: card });
  return answer.text;
}

const check = (id: string, status: string, more: object = {}) => ({ id, title: `Check ${id}`, status, ...more });
const part = (name: string, value: number, more: object = {}) => ({ name, value, weight: 1, detail: '', ...more });

describe('get_scorecard, as text', () => {
  it('lists each failing check with its field, hint and suggestion', async () => {
    const text = await scorecardText({
      score: { beauty: 40, harmony: 50, score: 45, total: 100 },
      passed: false,
      preflight: {
        passed: false,
        checks: [
          check('name', 'fail', { field: 'name', hint: 'shorten name', suggestion: 'Short' }),
          check('age', 'pass', { field: 'age_rating', hint: null, suggestion: null }),
        ],
      },
    });
    expect(text).toContain('- name: shorten name (Check name); suggestion "Short"');
    expect(text).not.toContain('age_rating');
    expect(text).toContain('update_spec');
  });

  it('when the pre-flight passes but the score does not, names the lowest parts with their field and hint', async () => {
    const text = await scorecardText({
      score: { beauty: 55, harmony: 60, score: 58, total: 100 },
      passed: false,
      preflight: { passed: true, checks: [check('name', 'pass', { field: 'name', hint: null, suggestion: null })] },
      components: [
        part('typeface', 100, { field: 'brand.typeface', hint: null, suggestion: null }),
        part('contrast', 20, {
          field: 'brand.palette',
          hint: 'raise the contrast',
          suggestion: ['#000000', '#FFFFFF'],
        }),
        part('voice', 50, { field: 'brand.voice', hint: 'give the brand a voice', suggestion: 'warm' }),
      ],
    });
    expect(text).toContain('brand.palette: raise the contrast');
    expect(text).toContain('suggestion ["#000000","#FFFFFF"]');
    expect(text).toContain('brand.voice: give the brand a voice');
    expect(text.indexOf('brand.palette')).toBeLessThan(text.indexOf('brand.voice')); // the lowest first
    expect(text).not.toContain('brand.typeface');
  });

  it('a scorecard that passed says so, with nothing to change', async () => {
    const text = await scorecardText({
      score: { beauty: 90, harmony: 90, score: 90, total: 100 },
      passed: true,
      preflight: { passed: true, checks: [check('name', 'pass')] },
      components: [part('voice', 80, { field: 'brand.voice', hint: 'warmer', suggestion: 'warm' })],
    });
    expect(text).toBe('Score 90/100 (beauty 90, harmony 90): passed. Pre-flight passed.');
  });
});
