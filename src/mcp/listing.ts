// tools/list as orc sends it: what the SDK lists, less what tells a client nothing, since every byte of it is in
// an agent's context on every turn (docs/guide.md gives the size). Left out: each schema's "$schema" (an MCP
// client reads a schema without one as JSON Schema 2020-12, the dialect these are written in),
// `"additionalProperties": {}` (an object is open without it: the contract's tolerant shapes), and
// `execution: { taskSupport: "forbidden" }` (what a tool without it means).
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

type Listed = ReadonlyArray<readonly [string, RegisteredTool]>;

/** Answers tools/list with `tools` (as registered, in this order), each listed lean. */
export function listLean(server: McpServer, tools: Listed): void {
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.filter(([, t]) => t.enabled).map(([name, t]) => listed(name, t)),
  }));
}

function listed(name: string, t: RegisteredTool): Tool {
  const execution = t.execution?.taskSupport && t.execution.taskSupport !== 'forbidden' ? t.execution : undefined;
  return {
    name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: schemaOf(t.inputSchema, 'input') as Tool['inputSchema'],
    ...(t.outputSchema ? { outputSchema: schemaOf(t.outputSchema, 'output') as Tool['outputSchema'] } : {}),
    ...(t.annotations ? { annotations: t.annotations } : {}),
    ...(execution ? { execution } : {}),
    ...(t._meta ? { _meta: t._meta } : {}),
  };
}

/** A tool's schema as JSON Schema 2020-12 (no input: an object with no properties), without the parts above. */
function schemaOf(schema: RegisteredTool['inputSchema'], io: 'input' | 'output'): Record<string, unknown> {
  if (!schema) return { type: 'object', properties: {} };
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema as z.ZodType, { io });
  return lean(rest) as Record<string, unknown>;
}

function lean(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(lean);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'additionalProperties' && isEmptyObject(x)) continue;
    out[k] = lean(x);
  }
  return out;
}

const isEmptyObject = (x: unknown) =>
  x !== null && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 0;
