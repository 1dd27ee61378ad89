// What a client reads of each tool in tools/list: a short description (what it does, when to call it) and an
// output schema with every field the tool answers, typed as the contract gives it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { beforeAll, expect, it } from 'vitest';
import * as contract from '../../src/contract/schemas.js';
import { TOOLSET_NAMES, pickTools } from '../../src/mcp/toolsets.js';
import { inProcessMcp } from '../helpers/mcp.js';

type Listed = Awaited<ReturnType<Client['listTools']>>['tools'];
let tools: Listed;
beforeAll(async () => {
  const { client, close } = await inProcessMcp({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'sk_test_schemas_0123456789',
    tools: (all) => pickTools(all, { toolsets: TOOLSET_NAMES }, 'test'),
  });
  tools = (await client.listTools()).tools;
  await close();
});
const tool = (name: string) => tools.find((t) => t.name === name)!;
// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema read by path
const props = (schema: any, ...path: string[]): string[] => {
  let at = schema;
  for (const key of path) at = key === '[]' ? at.items : at.properties[key];
  return Object.keys(at.properties);
};
const keysOf = (schema: object) => Object.keys((schema as { shape: object }).shape);

const OWN_ELSEWHERE = ['list_artifacts', 'pull_artifacts', 'get_artifact'];

it('each description is one or two short sentences', () => {
  for (const t of tools.filter((x) => !OWN_ELSEWHERE.includes(x.name))) {
    const text = t.description!.replace(/ Runs as an MCP task where the client supports tasks\.$/, '');
    expect(text.length, t.name).toBeLessThanOrEqual(240);
    expect(text.split(/\.(\s|$)/).filter((x) => x.trim()).length, `${t.name}: ${text}`).toBeLessThanOrEqual(2);
  }
});

it('the fix loop at final is said once, in get_scorecard', () => {
  for (const word of ['field', 'hint', 'suggestion', 'update_spec', 'reject_gate'])
    expect(tool('get_scorecard').description).toContain(word);
  const saying = tools.filter((t) => /suggestion/.test(t.description ?? '')).map((t) => t.name);
  expect(saying).toEqual(['get_scorecard']);
});

it('each output schema has every field the contract gives the shapes it answers', () => {
  const out = (name: string) => tool(name).outputSchema;
  expect(props(out('get_run'), 'run')).toEqual(keysOf(contract.Run));
  expect(props(out('get_run'), 'gates', '[]')).toEqual(keysOf(contract.Gate));
  expect(props(out('list_runs'), 'runs', '[]')).toEqual(keysOf(contract.Run));
  expect(props(out('get_spec'), 'spec')).toEqual(keysOf(contract.AppSpec));
  expect(props(out('approve_gate'), 'gate', 'run')).toEqual(keysOf(contract.Run));
  expect(props(out('get_scorecard'), 'scorecard', 'preflight', 'checks', '[]')).toEqual(
    keysOf(contract.PreflightCheck),
  );
  expect(props(out('get_scorecard'), 'scorecard', 'components', '[]')).toEqual(keysOf(contract.ScoreComponent));
  expect(props(out('wait_for_run'), 'deciding')).toEqual(['summary', 'brand', 'scorecard']);
  expect(props(out('list_deliveries'), 'deliveries', '[]')).toEqual(keysOf(contract.Delivery));
  expect(props(out('add_webhook'), 'webhook')).toContain('secret');
  expect(props(out('advance_clock'), 'run')).toEqual(keysOf(contract.Run));
});
