// The OpenAPI 3.1 document orc ships (`orc api --openapi`, dist/openapi.json): valid by an independent
// parser, a route for every route the sandbox answers and none it does not, and the answers themselves
// checked against it in every contract test (test/helpers/openapi.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/contract/openapi.js';
import { apiRoutes } from '../../src/sandbox/routes.js';
import { orc } from '../helpers/cli.js';
import { checkAnswer } from '../helpers/openapi.js';

const doc = openApiDocument('test') as {
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
};

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 to an independent parser', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('has every route the sandbox answers, and no other; a webhook per event kind', () => {
    const routes = apiRoutes({} as never).map(
      (r) => `${r.method} ${r.pattern.replace(/\{run\}|\{webhook\}/g, '{id}').replace('{delivery}', '{delivery_id}')}`,
    );
    const described = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(described.sort()).toEqual([...new Set(routes)].sort());
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'run.accepted',
      'run.canceled',
      'run.created',
      'run.failed',
      'run.gate_pending',
      'run.gate_resolved',
      'run.rejected',
      'run.scored',
      'run.stage_changed',
    ]);
  });

  it('is what the built orc prints with api --openapi, and what the package ships', async () => {
    const r = await orc(['api', '--openapi']);
    expect(r.exitCode, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.openapi).toBe('3.1.0');
    expect(printed.paths).toEqual(doc.paths);
    expect(JSON.parse(readFileSync(resolve(import.meta.dirname, '../../dist/openapi.json'), 'utf8')).paths).toEqual(
      doc.paths,
    );
    expect((await orc(['api', 'GET', '--openapi'])).exitCode).toBe(2);
  });

  it("describes a gate's history of decisions, and the notes of run.gate_resolved", () => {
    const gate = doc.components.schemas.Gate as any;
    expect(gate.properties.history.items.properties.decision).toBeDefined();
    expect(gate.properties.history.items.required).toEqual(['decision', 'notes', 'decided_at']);
    expect(gate.required).not.toContain('history'); // additive: a service without it is still read
    expect((doc.components.schemas.Event as any).properties.data.properties.notes).toBeDefined();
    expect(() =>
      checkAnswer('GET', '/v1/runs/run_x/gates', 200, {
        data: [{ name: 'idea', state: 'approved', decided_at: null, notes: null, history: [{ decision: 'approved' }] }],
      }),
    ).toThrow(/does not match/);
  });

  it('catches an answer that is not what it says (the check the contract tests run is not idle)', () => {
    expect(() => checkAnswer('GET', '/v1/runs/run_x', 200, { id: 'run_x', status: 'running' })).toThrow(
      /does not match the OpenAPI document/,
    );
    expect(() => checkAnswer('GET', '/v1/runs/run_x', 404, { error: { code: 'run_not_found' } })).toThrow(
      /ErrorEnvelope|does not match/,
    );
    expect(() => checkAnswer('GET', '/v1/runs', 200, { data: [], next_cursor: null, has_more: false })).not.toThrow();
  });
});
