// The OpenAPI 3.1 document orc ships (`orc api --openapi`, dist/openapi.json): valid by an independent
// parser, a route for every route the sandbox answers and none it does not, and the answers themselves
// checked against it in every contract test (test/helpers/openapi.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACT_KINDS } from '../../src/contract/events.js';
import { openApiDocument } from '../../src/contract/openapi.js';
import { adminRoutes } from '../../src/sandbox/admin.js';
import { apiRoutes } from '../../src/sandbox/routes.js';
import { orc } from '../helpers/cli.js';
import { allowsRequest, checkAnswer, declaredHeaders } from '../helpers/openapi.js';
import { driveToEnd, KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

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

  it('has every route the sandbox answers (its admin API and files too), and no other; a webhook per event kind', () => {
    const routes = apiRoutes({} as never).map(
      (r) => `${r.method} ${r.pattern.replace(/\{run\}|\{webhook\}/g, '{id}').replace('{delivery}', '{delivery_id}')}`,
    );
    routes.push(...adminRoutes({} as never).map((r) => `${r.method} ${r.pattern}`));
    routes.push('GET /files/{run}/{kind}/{name}', 'HEAD /files/{run}/{kind}/{name}');
    for (const [p, ops] of Object.entries(doc.paths))
      for (const op of Object.values(ops) as any[])
        expect(op['x-orc-sandbox-only'] === true, p).toBe(p.startsWith('/_sandbox/'));
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
    // The 3.2 companion: the same document, and each message of the event stream described
    const r32 = await orc(['api', '--openapi', '--oas', '3.2']);
    const doc32 = JSON.parse(r32.stdout);
    expect(doc32.openapi).toBe('3.2.0');
    const stream = doc32.paths['/v1/runs/{id}/events'].get.responses['200'].content['text/event-stream'];
    expect(stream.itemSchema.properties.data.contentSchema).toEqual({ $ref: '#/components/schemas/Event' });
    expect(JSON.parse(readFileSync(resolve(import.meta.dirname, '../../dist/openapi-3.2.json'), 'utf8'))).toEqual(
      doc32,
    );
    expect(printed.paths['/v1/runs/{id}/events'].get.responses['200'].content['text/event-stream']).toEqual({});
    expect((await orc(['api', '--oas', '3.2'])).exitCode).toBe(2);
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

  it('names each answer shape once: GateList and GateDecision refer to Gate (and Run), not copies of it', () => {
    const s = doc.components.schemas as any;
    const gate = { $ref: '#/components/schemas/Gate' };
    expect(s.GateList.properties.data.items).toEqual(gate);
    expect(s.GateDecision.properties.gate).toEqual(gate);
    expect(s.GateDecision.properties.run).toEqual({ $ref: '#/components/schemas/Run' });
    expect(s.RunPage.properties.data.items).toEqual({ $ref: '#/components/schemas/Run' });
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

describe('the OpenAPI document against the sandbox', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ rateLimit: 1000 });
  });
  afterAll(() => sb.close());
  const idea = { pitch: 'A habit tracker', audience: 'runners', monetization: 'freemium' };

  it('allows a body the sandbox accepts and refuses one it refuses: mode, blank text, webhook URLs, keys', async () => {
    const repo = 'https://example.com/app.git';
    const hook = (url: string) => ['POST', '/v1/webhooks', { url, events: ['*'] }] as const;
    const key = (k: string) => ({ 'Idempotency-Key': k });
    const cases: Array<[string, string, unknown, number, Record<string, string>?]> = [
      ['POST', '/v1/runs', { mode: 'idea', idea }, 201],
      ['POST', '/v1/runs', { mode: 'ship', source: repo }, 201],
      ['POST', '/v1/runs', { mode: 'idea' }, 400],
      ['POST', '/v1/runs', { mode: 'ship' }, 400],
      ['POST', '/v1/runs', { mode: 'ship', idea }, 400],
      ['POST', '/v1/runs', { mode: 'idea', idea, source: repo }, 400],
      // nonEmpty trims before it counts: blank text is refused, text with spaces around it is not
      ['POST', '/v1/runs', { mode: 'idea', idea: { ...idea, pitch: ' ' } }, 400],
      ['POST', '/v1/runs', { mode: 'idea', idea: { ...idea, pitch: ' A tracker ' } }, 201],
      ['POST', '/v1/runs', { mode: 'ship', source: { name: ' ' } }, 400],
      ['POST', '/v1/runs', { mode: 'ship', source: { name: 'Tracker' } }, 201],
      // https:// to a host, or http:// to this machine only
      [...hook('https://example.com/h'), 201],
      [...hook('http://127.0.0.1:9/h'), 201],
      [...hook('http://localhost/h'), 201],
      [...hook('http://[::1]:9/h'), 201],
      [...hook('http://example.com/h'), 400],
      [...hook('https://'), 400],
      [...hook('https://user:pw@example.com/h'), 400],
      ['POST', '/v1/runs', { mode: 'idea', idea }, 201, key('a key')],
      ['POST', '/v1/runs', { mode: 'idea', idea }, 400, key(' ')],
    ];
    for (const [method, path, body, status, headers] of cases) {
      const what = `${JSON.stringify(body)} ${JSON.stringify(headers ?? {})}`;
      expect(allowsRequest(method, path, body, headers), what).toBe(status === 201);
      expect((await sb.call(method, path, body, headers)).status, what).toBe(status);
    }
  });

  it('says in every request body that JSON nests at most 64 levels, which the sandbox holds to', async () => {
    for (const [p, ops] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(ops) as Array<[string, any]>)
        if (op.requestBody) expect(op.requestBody.description, `${m} ${p}`).toMatch(/at most 64 levels/);
    const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{"b":1}${'}'.repeat(depth - 1)}`;
    const run = await sb.createRun();
    for (const [depth, status] of [
      [64, 200],
      [65, 400],
    ] as const) {
      const text = `{"tagline":"x","extra":${nested(depth - 1)}}`;
      expect(allowsRequest('PATCH', `/v1/runs/${run.id}/spec`, JSON.parse(text)), `${depth}`).toBe(true);
      expect((await sb.call('PATCH', `/v1/runs/${run.id}/spec`, text)).status, `${depth}`).toBe(status);
    }
  });

  it('takes an Idempotency-Key of 1 to 255 characters, as the sandbox does', async () => {
    for (const [key, status] of [
      ['k'.repeat(255), 201],
      ['k'.repeat(256), 400],
    ] as const) {
      const headers = { 'Idempotency-Key': key };
      expect(allowsRequest('POST', '/v1/runs', { mode: 'idea', idea }, headers), `${key.length}`).toBe(status === 201);
      expect((await sb.call('POST', '/v1/runs', { mode: 'idea', idea }, headers)).status).toBe(status);
    }
  });

  it('refuses __proto__, constructor and prototype in a spec patch, at any depth, as the sandbox does', async () => {
    const run = await sb.createRun();
    for (const text of [
      '{"tagline":"Run daily"}',
      '{"__proto__":{"x":1}}',
      '{"brand":{"constructor":"x"}}',
      '{"screens":[{"prototype":1}]}',
    ]) {
      const allowed = allowsRequest('PATCH', `/v1/runs/${run.id}/spec`, JSON.parse(text));
      const answer = await sb.call('PATCH', `/v1/runs/${run.id}/spec`, text);
      expect(allowed, text).toBe(answer.status === 200);
      if (!allowed) expect(answer.body.error.code, text).toBe('invalid_value');
    }
  });

  it("names the artifact kinds in the kind parameter, the contract's own", () => {
    const op = doc.paths['/v1/runs/{id}/artifacts/{kind}']!.get as any;
    expect(op.parameters.find((p: any) => p.name === 'kind').schema.enum).toEqual([...ARTIFACT_KINDS]);
  });

  it('declares the headers the sandbox sends: a replay is the original 201 with Idempotent-Replayed; streams, files, 405', async () => {
    const transport = new Set([
      'content-type',
      'content-length',
      'transfer-encoding',
      'date',
      'connection',
      'keep-alive',
    ]);
    const body = { mode: 'idea', idea };
    const key = { 'Idempotency-Key': 'same-key' };
    const done = await driveToEnd(sb, (await sb.createRun()).id);
    const shot = (await sb.call('GET', `/v1/runs/${done.id}/artifacts/screenshots`)).body.files[0];
    const file = new URL(shot.url).pathname;
    const auth = { authorization: `Bearer ${KEY}` };
    // The head is what is checked: a stream that stays open (the firehose, the journal followed) is let go after it.
    const stream = (path: string) => async () => {
      const res = await fetch(`${sb.url}${path}`, { headers: auth });
      await res.body?.cancel();
      return res;
    };
    const answers: Array<[string, string, () => Promise<{ status: number; headers: Headers }>]> = [
      ['GET', '/v1/runs', () => sb.call('GET', '/v1/runs')],
      ['POST', '/v1/runs', () => sb.call('POST', '/v1/runs', body, key)],
      ['POST', '/v1/runs', () => sb.call('POST', '/v1/runs', body, key)],
      ['GET', '/v1/runs/run_nope', () => sb.call('GET', '/v1/runs/run_nope')],
      ['GET', '/v1/runs', () => fetch(`${sb.url}/v1/runs`)],
      ['GET', '/_sandbox/clock', () => sb.call('GET', '/_sandbox/clock')],
      ['GET', `/v1/runs/${done.id}/events`, stream(`/v1/runs/${done.id}/events`)],
      ['GET', '/_sandbox/logs', stream('/_sandbox/logs?follow=1')],
      ['GET', '/_sandbox/events', stream('/_sandbox/events')],
      ['GET', file, () => fetch(shot.url, { headers: { Range: 'bytes=0-0' } })],
      ['GET', file, () => fetch(shot.url, { headers: { Range: 'bytes=99999999-' } })],
      ['GET', file, () => fetch(shot.url, { headers: { 'If-None-Match': `"${shot.sha256}"` } })],
      ['DELETE', '/v1/runs', () => sb.call('DELETE', '/v1/runs')],
    ];
    const seen: string[] = [];
    for (const [method, path, ask] of answers) {
      const answer = await ask();
      const sent = [...answer.headers.keys()].filter((n) => !transport.has(n)).sort();
      const declared = declaredHeaders(method, path, answer.status);
      expect(
        sent.filter((n) => !declared.all.includes(n)),
        `${method} ${path} ${answer.status}`,
      ).toEqual([]);
      expect(
        declared.required.filter((n) => !sent.includes(n)),
        `${method} ${path} ${answer.status}`,
      ).toEqual([]);
      seen.push(`${answer.status} ${answer.headers.get('idempotent-replayed') ?? ''}`);
    }
    expect(seen).toEqual([
      '200 ',
      '201 ',
      '201 true',
      '404 ',
      '401 ',
      '200 ',
      '200 ',
      '200 ',
      '200 ',
      '206 ',
      '416 ',
      '304 ',
      '405 ',
    ]);
  });
});
