// `orc mcp`: a Model Context Protocol server on stdio, with the official SDK, over the same client as every
// command (the profile, the key rules, the one request path, the pull engine). One tool per operation,
// each with a JSON Schema for its input, a description an agent can act on, and annotations; resources for
// runs and their specs. Service errors are tool errors with the service's code, never a crash.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { McpServer, type RegisteredTool, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type ResourceLink,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import * as z from 'zod';
import { pick } from 'zod/mini';
import { ApiError, type Api } from '../api/index.js';
import { traceFrom, withTrace } from '../api/trace.js';
import { listLean } from './listing.js';
import { WaitTasks } from './tasks.js';
import { RESOURCE_NOT_FOUND, ARTIFACT_URI, artifactOut, getArtifact, readArtifact } from './artifacts.js';
import { waitForRun } from '../watch/wait.js';
import { systemClock, type Clock } from '../lib/clock.js';
import {
  ARTIFACT_KINDS,
  EVENT_KINDS,
  GATE_NAMES,
  MONETIZATION_VALUES,
  RUN_STATUSES,
  type RunStatus,
  TERMINAL_STATUSES,
} from '../contract/events.js';
import * as contract from '../contract/schemas.js';
import type { AppSpec, Event, Run, RunCreateParams, Scorecard } from '../contract/schemas.js';
import { Problem } from '../lib/problem.js';
import type { ResetDone, TriggerParams, TriggerResult } from '../contract/sandbox-control.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

// zod compiles a parser for each object schema the first time it parses with it (new Function): worth it
// for a schema used thousands of times, not for the MCP messages of one session, where compiling the
// first `initialize` cost more than parsing every message after it (a cost at `orc mcp`'s start: docs/figures.md).
z.config({ jitless: true });

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  /** The shape of its structured result (every tool declares one; the client checks the result against it). */
  output: z.ZodRawShape;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  run(args: Record<string, unknown>, extra: Extra): ToolAnswer;
}

/** What a tool answers: text for the model, its structured result, and files as links (never their bytes). */
type ToolAnswer = Promise<{ text: string; data: Record<string, unknown>; links?: ResourceLink[] }>;

export interface McpOptions {
  api: Api;
  version: string;
  /** The tools offered (from toolDefs, already narrowed by --read-only and --tools). */
  tools: readonly ToolDef[];
  /** A live target without --yes-live-decisions: approve_gate and reject_gate ask the human through MCP
   * elicitation, and are refused where the client cannot ask. */
  askHuman?: boolean;
  /** The clock of resource reads' downloads (their retries); the system's by default. */
  clock?: Clock;
}

const DECISIONS = ['approve_gate', 'reject_gate'];

/** The human's word on a live gate decision, asked through the client (MCP elicitation): the decision and
 * the notes they give are the ones made, whatever the agent asked for. */
async function askHuman(
  server: McpServer,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (!server.server.getClientCapabilities()?.elicitation)
    throw Object.assign(
      new Problem(
        `${tool} on a live service needs a person's yes, and this MCP client cannot ask one (it has no elicitation). Decide it with \`orc gate ${tool === 'approve_gate' ? 'approve' : 'reject'} ${String(args.run_id)} ${String(args.gate)} --live\`, or start the server with \`orc mcp --live --yes-live-decisions\` to let the agent decide.`,
      ),
      { code: 'needs_human' },
    );
  const asked = tool === 'approve_gate' ? 'approve' : 'reject';
  await loadValidator(); // the SDK checks the person's answer against the schema below
  const answer = await server.server.elicitInput({
    message: `The agent asks to ${asked} gate ${String(args.gate)} of ${String(args.run_id)} on the LIVE service${args.spec_patch ? `, after this change to the App Spec: ${JSON.stringify(args.spec_patch)}` : ''}${args.notes ? `, with the notes: ${String(args.notes)}` : ''}. Your decision:`,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'], default: asked },
        notes: {
          type: 'string',
          title: 'Notes',
          description: 'Needed to reject; kept with an approval',
          ...(typeof args.notes === 'string' ? { default: args.notes } : {}),
        },
      },
      required: ['decision'],
    },
  });
  if (answer.action !== 'accept' || !answer.content)
    throw Object.assign(
      new Problem(
        `the person ${answer.action === 'decline' ? 'declined' : 'did not answer'}; gate ${String(args.gate)} of ${String(args.run_id)} was not decided`,
      ),
      { code: 'not_decided' },
    );
  const decision = answer.content.decision === 'reject' ? 'reject_gate' : 'approve_gate';
  const notes =
    typeof answer.content.notes === 'string' && answer.content.notes.trim() ? answer.content.notes.trim() : undefined;
  if (decision === 'reject_gate' && !notes)
    throw Object.assign(
      new Problem(`a rejection needs notes; gate ${String(args.gate)} of ${String(args.run_id)} was not decided`),
      { code: 'not_decided' },
    );
  return { ...args, tool: decision, notes };
}

/**
 * The JSON Schema validator the SDK checks an elicitation's answer with: Ajv, loaded only when a person is
 * asked (askHuman), not at start-up, where it slowed every `orc mcp` (docs/figures.md; the build leaves the SDK's
 * own eager import of it out: scripts/bundle-options.mjs).
 */
let ajv: jsonSchemaValidator | null = null;
const lazyValidator: jsonSchemaValidator = {
  getValidator(schema) {
    if (!ajv) throw new Error('the JSON Schema validator is loaded before a person is asked');
    return ajv.getValidator(schema);
  },
};
async function loadValidator(): Promise<void> {
  ajv ??= new (await import('@modelcontextprotocol/sdk/validation/ajv')).AjvJsonSchemaValidator();
}

/** A tool whose `run` receives its arguments typed by its own input schema (the SDK has checked them). */
function defineTool<S extends z.ZodRawShape>(
  def: Omit<ToolDef, 'input' | 'run'> & {
    input: S;
    run(args: z.infer<z.ZodObject<S>>, extra: Extra): ToolAnswer;
  },
): ToolDef {
  return def as unknown as ToolDef;
}

/** How long wait_for_run waits when not told (timeout_s). */
const WAIT_S = 50;

/** An id the service made: far shorter than this, which keeps an agent's mistake (a whole document pasted as an
 * id) from becoming a URL of megabytes. */
export const ID_MAX = 255;
const runId = z.string().min(1).max(ID_MAX).describe('The run id (run_…)');
const gate = z.enum(GATE_NAMES).describe('The gate: idea, brand or final');

// What tools answer, as structured content: the contract's read shapes, whole (every field typed, unknown
// fields kept), the ones the client parses the service's answers with, so a result always fits its schema.
const runOut = contract.Run;
const gateOut = contract.Gate;
const specOut = contract.AppSpec;
/** The App Spec's fields an idea gate decides (deciding()). */
const SUMMARY = { name: true, tagline: true, audience: true, monetization: true, features: true } as const;
const decidedOut = {
  gate: contract.GateDecision,
  spec: z.optional(specOut).describe('The App Spec after spec_patch, when one was given'),
};
/** A change to the App Spec made before the decision (a JSON Merge Patch); refused, nothing is decided. */
const specPatch = z
  .record(z.string(), z.unknown())
  .optional()
  .describe('A JSON Merge Patch of the App Spec applied first (as update_spec); refused, nothing is decided');

/** The decision's spec change first, when there is one, and only at a gate that waits for the decision:
 * refused (or the gate not pending), it throws and nothing is changed or decided. */
async function patchFirst(api: Api, runId: string, gate: string, patch: Record<string, unknown> | undefined) {
  if (!patch || Object.keys(patch).length === 0) return {};
  await api.gates.ensurePending(runId, gate);
  return { spec: await api.spec.update(runId, patch) };
}

/**
 * The folder `dir` names, when it lies inside `root` (the folder the server writes into): resolved against
 * root, `..` and links followed to where they really lead (the nearest part that exists, as the pull would
 * make the rest). An agent cannot write where its user did not say it may.
 */
export function folderInside(root: string, dir: string): string {
  const wanted = resolve(root, dir);
  let at = wanted;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  const real = join(realpathSync(at), relative(at, wanted));
  const top = realpathSync(root);
  const inside = relative(top, real);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new Problem(
      `dir: ${JSON.stringify(dir)} is outside ${top}, the folder this server writes into; nothing was written`,
      'Give a folder inside it (relative to it), or start the server with --root naming a folder that holds the one you want.',
    );
  }
  return real;
}

/** Every tool orc offers, in the order they are listed. `root`: the folder pull_artifacts writes into. */
// oxlint-disable-next-line max-lines-per-function -- a data table: the tools, their schemas and handlers
export function toolDefs(api: Api, clock: Clock, root: string = process.cwd()): ToolDef[] {
  const read = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
  return [
    defineTool({
      name: 'list_runs',
      title: 'List runs',
      description: 'List runs, newest first, a page at a time.',
      input: {
        status: z.enum(RUN_STATUSES).optional().describe('Only runs in this status'),
        limit: z.number().int().min(1).max(100).optional().describe('Runs per page (default 20)'),
        cursor: z.string().optional().describe('The next_cursor of the previous page'),
      },
      output: { runs: z.array(runOut), next_cursor: z.string().nullable(), has_more: z.boolean() },
      annotations: read,
      run: (a) => listRuns(api, a),
    }),
    defineTool({
      name: 'get_run',
      title: 'Get a run',
      description: 'A run and its three gates: status, stage, and the gate it waits at.',
      input: { run_id: runId },
      output: { run: runOut, gates: z.array(gateOut) },
      annotations: read,
      run: async (a) => {
        const [run, gates] = await Promise.all([api.runs.retrieve(a.run_id), api.gates.list(a.run_id)]);
        return {
          text: `${run.id}: ${run.status} at ${run.stage}${run.gate_pending ? `, waiting at gate ${run.gate_pending}` : ''}. Gates: ${gates.map((g) => `${g.name} ${g.state}`).join(', ')}.`,
          data: { run, gates },
        };
      },
    }),
    defineTool({
      name: 'create_run',
      title: 'Create a run',
      description:
        'Start a run from an idea or from source, then wait_for_run. Retrying with the same idempotency_key never makes a second run.',
      input: {
        mode: z.enum(['idea', 'ship']).describe('idea: from idea; ship: from source'),
        idea: z
          .object({ pitch: z.string().min(1), audience: z.string().min(1), monetization: z.enum(MONETIZATION_VALUES) })
          .optional()
          .describe('For mode idea'),
        source: z
          .union([z.string(), z.record(z.string(), z.unknown())])
          .optional()
          .describe('For mode ship: a repository URL (https://… or git@…:…) or an App Spec object'),
        idempotency_key: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe('Reuse to make a retry safe; default: a new key for this call'),
      },
      output: { run: runOut, replayed: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: (a) => createRun(api, a),
    }),
    defineTool({
      name: 'cancel_run',
      title: 'Cancel a run',
      description: 'Cancel a run that is still going, for good.',
      input: { run_id: runId },
      output: { run: runOut },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      run: async (a) => {
        const run = await api.runs.cancel(a.run_id);
        return { text: `${run.id} is ${run.status}.`, data: { run } };
      },
    }),
    defineTool({
      name: 'list_gates',
      title: 'List the gates of a run',
      description: 'The three gates of a run (idea, brand, final): state, when decided, notes.',
      input: { run_id: runId },
      output: { gates: z.array(gateOut) },
      annotations: read,
      run: async (a) => {
        const gates = await api.gates.list(a.run_id);
        return {
          text: gates.map((g) => `${g.name}: ${g.state}${g.notes ? ` (${g.notes})` : ''}`).join('\n'),
          data: { gates },
        };
      },
    }),
    defineTool({
      name: 'approve_gate',
      title: 'Approve a gate',
      description: 'Approve the gate a run waits at, once you have read what it decides (wait_for_run gives it).',
      input: {
        run_id: runId,
        gate,
        notes: z.string().optional().describe('Optional notes kept with the decision'),
        spec_patch: specPatch,
      },
      output: decidedOut,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (a) => {
        const changed = await patchFirst(api, a.run_id, a.gate, a.spec_patch);
        const decided = await api.gates.approve(a.run_id, a.gate, a.notes);
        return {
          text: `Approved gate ${a.gate} of ${a.run_id}; the run goes on.`,
          data: { gate: decided, ...changed },
        };
      },
    }),
    defineTool({
      name: 'reject_gate',
      title: 'Reject a gate',
      description:
        'Reject the gate a run waits at, with notes on what to change: that part is reworked and the gate opens again.',
      input: {
        run_id: runId,
        gate,
        notes: z.string().trim().min(1).describe('Why, and what to change (required)'),
        spec_patch: specPatch,
      },
      output: decidedOut,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      run: async (a) => {
        const changed = await patchFirst(api, a.run_id, a.gate, a.spec_patch);
        const decided = await api.gates.reject(a.run_id, a.gate, a.notes);
        return {
          text: `Rejected gate ${a.gate} of ${a.run_id}; the run goes back with the notes.`,
          data: { gate: decided, ...changed },
        };
      },
    }),
    defineTool({
      name: 'get_spec',
      title: 'Get the App Spec',
      description: "A run's App Spec.",
      input: { run_id: runId },
      output: { spec: specOut },
      annotations: read,
      run: async (a) => {
        const spec = await api.spec.retrieve(a.run_id);
        return { text: JSON.stringify(spec, null, 2), data: { spec } };
      },
    }),
    defineTool({
      name: 'update_spec',
      title: 'Update the App Spec',
      description:
        "Change a run's App Spec (a JSON Merge Patch); refused once the run ended or its final gate was approved.",
      input: {
        run_id: runId,
        patch: z
          .record(z.string(), z.unknown())
          .describe(
            'Only the fields to change; null removes one, a list is replaced whole. A suggestion for field "brand.palette" is {"brand": {"palette": […]}}',
          ),
      },
      output: { spec: specOut },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (a) => {
        const spec = await api.spec.update(a.run_id, a.patch);
        return { text: `Updated the spec of ${a.run_id}: ${Object.keys(a.patch).join(', ')}.`, data: { spec } };
      },
    }),
    defineTool({
      name: 'get_scorecard',
      title: 'Get the scorecard',
      description:
        'How the app scored, why (components), and its pre-flight checks. A failing check or low component has field, hint and suggestion: set the suggestion at the field with update_spec, reject_gate final with notes, then wait_for_run.',
      input: { run_id: runId },
      output: { scorecard: contract.Scorecard },
      annotations: read,
      run: async (a) => {
        const card = await api.runs.scorecard(a.run_id);
        return {
          text: `Score ${card.score.score}/${card.score.total} (beauty ${card.score.beauty}, harmony ${card.score.harmony}): ${card.passed ? 'passed' : 'did not pass'}.${failingText(card)}`,
          data: { scorecard: card },
        };
      },
    }),
    defineTool({
      name: 'list_artifacts',
      title: 'List the artifacts',
      description: `What a run produced, by kind (${ARTIFACT_KINDS.join(', ')}): status (pending or ready), size, files and sha256. get_artifact gives one ready kind.`,
      input: { run_id: runId },
      output: {
        artifacts: z.array(
          z.looseObject({
            kind: z.string(),
            status: z.string().describe('pending or ready'),
            content_type: z.string(),
            size: z.number().nullable().describe('Bytes, all files together; null while pending'),
            sha256: z.string().nullable(),
            files: z.number(),
            updated_at: z.string(),
          }),
        ),
      },
      annotations: read,
      run: async (a) => {
        const artifacts = await api.artifacts.manifest(a.run_id);
        return {
          text: artifacts.map((x) => `${x.kind}: ${x.status}${x.size !== null ? `, ${x.size} bytes` : ''}`).join('\n'),
          data: { artifacts },
        };
      },
    }),
    defineTool({
      name: 'get_artifact',
      title: 'Get an artifact',
      description:
        'One ready kind of a run: a JSON kind (metadata, scorecard, preflight, spec) inline; screenshots or ipa as resource links (size, sha256) to read with resources/read (up to 7 MiB) or pull_artifacts.',
      input: { run_id: runId, kind: z.enum(ARTIFACT_KINDS).describe('The kind, as list_artifacts names it') },
      output: artifactOut,
      annotations: read,
      run: (a) => getArtifact(api, a.run_id, a.kind),
    }),
    defineTool({
      name: 'pull_artifacts',
      title: 'Download artifacts',
      description:
        "Download a run's artifacts into a folder under the server's root, each checked by sha256; a file already there is never replaced.",
      input: {
        run_id: runId,
        kinds: z.array(z.enum(ARTIFACT_KINDS)).optional().describe('The kinds to pull; default every ready kind'),
        dir: z
          .string()
          .min(1)
          .describe(
            'The folder (made if missing), relative to the server root or inside it: files to <dir>/<kind>/<name>, JSON kinds to <dir>/<kind>.json',
          ),
      },
      output: {
        dir: z.string(),
        files: z.array(
          z.looseObject({
            kind: z.string(),
            name: z.string(),
            path: z.string(),
            size: z.number(),
            sha256: z.string(),
            state: z.enum(['downloaded', 'resumed', 'present']),
          }),
        ),
        pending: z.array(z.string()).describe('Kinds not ready yet'),
        failed: z.array(
          z.looseObject({ kind: z.string(), name: z.string(), path: z.string().nullable(), error: z.string() }),
        ),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: (a, extra) => pullInto(api, clock, folderInside(root, a.dir), a, extra),
    }),
    defineTool({
      name: 'wait_for_run',
      title: 'Wait for a run',
      description:
        'Wait until a gate is pending, the run ends, or timeout_s passes. At a gate it gives what is decided; then approve_gate or reject_gate.',
      input: {
        run_id: runId,
        timeout_s: z
          .number()
          .min(1)
          .max(3600)
          .optional()
          .describe(`Give up waiting after this many seconds (default ${WAIT_S}); the run goes on`),
      },
      output: {
        outcome: z.enum(['gate_pending', 'ended', 'timeout']),
        run: runOut,
        waited_ms: z.number(),
        gate: z.enum(GATE_NAMES).optional().describe('With gate_pending'),
        status: z.string().optional().describe('With ended'),
        deciding: z
          .looseObject({
            summary: z.optional(pick(specOut, SUMMARY)),
            brand: z.optional(z.nullable(contract.Brand)),
            scorecard: z.optional(contract.Scorecard),
          })
          .optional()
          .describe('With gate_pending: what it decides (idea: summary; brand: brand; final: scorecard)'),
      },
      annotations: read,
      run: (a, extra) => waitForRunTool(api, clock, a.run_id, (a.timeout_s ?? WAIT_S) * 1000, extra),
    }),
    ...webhookToolDefs(api),
  ];
}

/** list_runs: one page, a line per run. */
async function listRuns(
  api: Api,
  a: { status?: RunStatus | undefined; limit?: number | undefined; cursor?: string | undefined },
): ToolAnswer {
  const page = await api.runs.list({ status: a.status, limit: a.limit ?? 20, cursor: a.cursor });
  const lines = page.data.map(
    (r) => `${r.id} ${r.status} ${r.stage}${r.gate_pending ? ` (gate ${r.gate_pending} pending)` : ''}`,
  );
  return {
    text: lines.length ? `${lines.join('\n')}${page.has_more ? `\nMore: cursor ${page.next_cursor}` : ''}` : 'No runs.',
    data: { runs: page.data, next_cursor: page.next_cursor, has_more: page.has_more },
  };
}

/** create_run: the input schema has checked the shape; the service checks the rest (mode against idea or source). */
async function createRun(
  api: Api,
  a: { mode: string; idea?: object | undefined; source?: unknown; idempotency_key?: string | undefined },
): ToolAnswer {
  const body = {
    mode: a.mode,
    ...(a.idea ? { idea: a.idea } : {}),
    ...(a.source !== undefined ? { source: a.source } : {}),
  } as RunCreateParams;
  const run = await api.runs.create(body, { idempotencyKey: a.idempotency_key ?? crypto.randomUUID() });
  return {
    text: `${run.replayed ? 'Already created (same idempotency_key)' : 'Created'} ${run.id}: ${run.status} at ${run.stage}.`,
    data: { run, replayed: Boolean(run.replayed) },
  };
}

/** pull_artifacts into `dir` (inside the server's root; made by the pull engine, through src/artifacts/disk.ts). */
async function pullInto(
  api: Api,
  clock: Clock,
  dir: string,
  a: { run_id: string; kinds?: Array<(typeof ARTIFACT_KINDS)[number]> | undefined },
  extra: Extra,
): ToolAnswer {
  const { pullArtifacts, reportedFile } = await import('../artifacts/pull.js');
  const outcome = await pullArtifacts(api, a.run_id, {
    kinds: a.kinds ?? [],
    dir,
    concurrency: 4,
    signal: extra.signal,
    clock,
    keep: true,
  });
  const files = outcome.files.map(reportedFile);
  const text = [
    `${files.length} file${files.length === 1 ? '' : 's'} in ${outcome.dir}`,
    ...files.map((f) => `${f.state} ${f.path}`),
    ...outcome.failed.map((f) => `failed ${f.kind}/${f.name}: ${f.error}`),
    outcome.pending.length ? `not ready yet: ${outcome.pending.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { text, data: { dir: outcome.dir, files, pending: outcome.pending, failed: outcome.failed } };
}

/** The webhooks toolset (`orc mcp --toolsets webhooks`): register, list and remove webhooks; their deliveries. */
// oxlint-disable-next-line max-lines-per-function -- a data table: the webhook tools, their schemas and handlers
function webhookToolDefs(api: Api): ToolDef[] {
  const read = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
  const webhookId = z.string().min(1).max(ID_MAX).describe('The webhook id, such as wh_4Tq9 (from list_webhooks)');
  return [
    defineTool({
      name: 'list_webhooks',
      title: 'List webhooks',
      description: 'The webhooks registered: where each delivers, for which events, and its status. Never a secret.',
      input: {},
      output: { webhooks: z.array(contract.Webhook) },
      annotations: read,
      run: async () => {
        const webhooks: contract.Webhook[] = [];
        for await (const w of api.webhooks.listAll()) webhooks.push(w);
        const lines = webhooks.map((w) => `${w.id} ${w.status} ${w.url} (${w.events.join(', ')})`);
        return { text: lines.join('\n') || 'No webhooks.', data: { webhooks } };
      },
    }),
    defineTool({
      name: 'add_webhook',
      title: 'Add a webhook',
      description:
        'Register a webhook for run events. Its signing secret is in this result only: it is never shown again.',
      input: {
        url: z.string().min(1).describe("Where deliveries go: https://…, or http:// to the service's own machine"),
        events: z
          .union([z.tuple([z.literal('*')]), z.array(z.enum(EVENT_KINDS)).min(1)])
          .describe('The event kinds to deliver, or ["*"] for all'),
      },
      output: { webhook: contract.WebhookWithSecret },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (a) => {
        const webhook = await api.webhooks.create({ url: a.url, events: a.events });
        return {
          text: `Added ${webhook.id} for ${webhook.events.join(', ')} to ${webhook.url}. Its signing secret (shown only now): ${webhook.secret}`,
          data: { webhook },
        };
      },
    }),
    defineTool({
      name: 'remove_webhook',
      title: 'Remove a webhook',
      description: 'Remove a webhook for good: nothing more is delivered to it.',
      input: { webhook_id: webhookId },
      output: { removed: contract.Deleted },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (a) => ({
        text: `Removed ${a.webhook_id}.`,
        data: { removed: await api.webhooks.remove(a.webhook_id) },
      }),
    }),
    defineTool({
      name: 'list_deliveries',
      title: 'List the deliveries of a webhook',
      description: "A webhook's deliveries, newest first: event, status, attempts, last status code, next attempt.",
      input: {
        webhook_id: webhookId,
        status: z.enum(['pending', 'succeeded', 'failed']).optional().describe('Only deliveries in this state'),
        limit: z.number().int().min(1).max(500).optional().describe('At most this many (default 50)'),
      },
      output: { deliveries: z.array(contract.Delivery) },
      annotations: read,
      run: (a) => listDeliveries(api, a),
    }),
    defineTool({
      name: 'redeliver_delivery',
      title: 'Deliver again',
      description: 'Send a delivery again (a failed one, say), as a new attempt.',
      input: {
        webhook_id: webhookId,
        delivery_id: z.string().min(1).max(ID_MAX).describe('The delivery id, such as dlv_8Kx2 (from list_deliveries)'),
      },
      output: { delivery: contract.Delivery },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (a) => {
        const delivery = await api.webhooks.redeliver(a.webhook_id, a.delivery_id);
        return { text: `${delivery.id}: ${delivery.status} after ${delivery.attempts} attempts.`, data: { delivery } };
      },
    }),
  ];
}

/** list_deliveries: the pages walked until `limit` deliveries (of the status asked for) are found. */
async function listDeliveries(
  api: Api,
  a: { webhook_id: string; status?: string | undefined; limit?: number | undefined },
): ToolAnswer {
  const deliveries: contract.Delivery[] = [];
  const limit = a.limit ?? 50;
  for await (const d of api.webhooks.deliveries(a.webhook_id)) {
    if (a.status && d.status !== a.status) continue;
    deliveries.push(d);
    if (deliveries.length >= limit) break;
  }
  const lines = deliveries.map((d) => `${d.id} ${d.event_type} ${d.status} (${d.attempts} attempts)`);
  return { text: lines.join('\n') || `No deliveries for ${a.webhook_id}.`, data: { deliveries } };
}

/** The sandbox's controls an agent's tests need (`orc mcp --sandbox-tools`): the admin API under /_sandbox/. */
// oxlint-disable-next-line max-lines-per-function -- a data table: the sandbox's tools and their schemas
export function sandboxToolDefs(api: Api): ToolDef[] {
  const admin = <T extends object>(method: string, path: string, body?: object) =>
    api.sandbox.call<T>(method, path, body);
  return [
    defineTool({
      name: 'advance_clock',
      title: 'Advance the sandbox clock',
      description: 'Move time in the sandbox: the whole clock by a duration, or one run by a duration or to a point.',
      input: {
        by: z
          .string()
          .optional()
          .describe('How far: 90s, 15m, 3h, 2d (the whole clock: the sandbox runs --clock manual)'),
        run_id: z.string().min(1).max(ID_MAX).optional().describe('Move only this run'),
        to: z
          .string()
          .optional()
          .describe('With run_id: a stage (05_build), gate:NAME or end; gates before it approved'),
      },
      output: {
        mode: z.string(),
        now: z.string(),
        next_due: z.string().nullable(),
        runs: z.array(z.looseObject({ id: z.string() })),
        run: z.optional(runOut),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: (a) => advanceClock(api, a),
    }),
    defineTool({
      name: 'trigger_event',
      title: 'Trigger an event in the sandbox',
      description: 'Make the sandbox produce an event for real (on the stream and signed webhooks).',
      input: {
        kind: z.enum(EVENT_KINDS),
        run_id: z.string().min(1).max(ID_MAX).optional().describe('Default: a new fixture run driven there'),
        stage: z.string().optional().describe('For run.failed'),
        gate: gate.optional().describe('For run.gate_pending and run.gate_resolved'),
        error: z.string().optional().describe('For run.failed: "code: message"'),
        reason: z.string().optional().describe('For run.rejected'),
        passed: z.boolean().optional().describe('For run.scored: false for one that does not pass'),
      },
      output: { run: runOut, event: z.looseObject({ id: z.string(), type: z.string() }) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (a) => {
        const { run_id, ...rest } = a;
        const out = await admin<TriggerResult>('POST', '/_sandbox/trigger', {
          ...rest,
          ...(run_id !== undefined ? { run: run_id } : {}),
        } satisfies TriggerParams);
        const run = out.run;
        return { text: `${a.kind} on ${run.id}: it is ${run.status} at ${run.stage}.`, data: out };
      },
    }),
    defineTool({
      name: 'reset_sandbox',
      title: 'Reset the sandbox',
      description: 'Empty the sandbox (runs, webhooks, deliveries, faults) for a known start; the key and knobs stay.',
      input: {},
      output: { reset: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async () => ({ text: 'The sandbox is empty.', data: await admin<ResetDone>('POST', '/_sandbox/reset') }),
    }),
  ];
}

/** advance_clock: the whole clock, or one run by a duration or to a point. */
async function advanceClock(
  api: Api,
  a: { by?: string | undefined; run_id?: string | undefined; to?: string | undefined },
): ToolAnswer {
  const out = await api.sandbox.advance({
    ...(a.by !== undefined ? { by: a.by } : {}),
    ...(a.run_id !== undefined ? { run: a.run_id } : {}),
    ...(a.to !== undefined ? { to: a.to } : {}),
  });
  const run = out.run;
  return {
    text: run ? `${run.id} is ${run.status} at ${run.stage}.` : `The sandbox clock is at ${String(out.now)}.`,
    data: out,
  };
}

const WAITS = new WeakMap<McpServer, WaitTasks>();
/** The wait_for_run waits a server holds now (each an event stream to the service): a session with one is at
 * work, though no request of its is open. */
export function liveWaits(server: McpServer): number {
  return WAITS.get(server)?.size ?? 0;
}

export function createServer(o: McpOptions): McpServer {
  // A server lives as long as its client (hours, days): each request gets the whole --timeout, as watch's do,
  // not what is left of one deadline counted from its first request (which, after 120 s, refused every one).
  o.api.http.deadlinePerRequest();
  // wait_for_run may run as an MCP task (a client that supports tasks gets its result when it asks, however
  // long the wait); others call it as any tool. The tasks live in memory, as long as the server.
  const tasks = new WaitTasks();
  const server = new McpServer(
    { name: 'orc', version: o.version },
    {
      capabilities: { tasks: { requests: { tools: { call: {} } } } },
      taskStore: tasks,
      jsonSchemaValidator: lazyValidator,
      instructions:
        'orc drives runs on the Run Orchestration Service: an app idea (or source) becomes a shipped app through stages and three approval gates (idea, brand, final). Create a run, wait_for_run to the next gate, read what is being decided, then approve_gate or reject_gate with notes. At final, a scorecard that does not pass names its failing checks with field, hint and suggestion: set each suggestion at its field with update_spec, reject_gate final with notes, and wait_for_run for the rework.',
    },
  );
  const byName = new Map(o.tools.map((t) => [t.name, t]));
  // (the whole table only when a person decides otherwise than asked: a server is made for every HTTP session)
  let allDefs: Map<string, ToolDef> | undefined;
  // The person may decide otherwise than the agent asked: then the other tool does it.
  const toolNamed = (name: string) =>
    byName.get(name) ?? (allDefs ??= new Map(toolDefs(o.api, systemClock).map((t) => [t.name, t]))).get(name)!;
  // A task's wait outlives its request: it ends when the server closes (stdin closed, an HTTP session ended),
  // and the tasks' expiry timers go with it.
  server.server.onclose = () => tasks.cleanup();
  const registered = o.tools.map(
    (t) =>
      [
        t.name,
        t.name === 'wait_for_run'
          ? registerWaitTask(server, t, tasks)
          : registerTool(server, t, o.askHuman && DECISIONS.includes(t.name) ? toolNamed : null),
      ] as const,
  );
  listLean(server, registered);
  WAITS.set(server, tasks);
  registerResources(server, o.api, o.clock ?? systemClock);
  return server;
}

/** A tool as it is called; with `decidedBy`, a gate decision a person makes first (askHuman), and the tool of
 * the decision they made does it. */
function registerTool(server: McpServer, t: ToolDef, decidedBy: ((name: string) => ToolDef) | null): RegisteredTool {
  return server.registerTool(
    t.name,
    {
      title: t.title,
      description: t.description,
      inputSchema: t.input,
      outputSchema: z.looseObject(t.output),
      annotations: t.annotations,
    },
    (args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> =>
      traced(extra, async () => {
        try {
          let tool = t;
          if (decidedBy) {
            const { tool: decided, ...answered } = await askHuman(server, t.name, args);
            tool = decidedBy(decided as string);
            args = answered;
          }
          return answered(await tool.run(args, extra));
        } catch (err) {
          return toolError(err);
        }
      }),
  );
}

/** `fn` with the trace context its MCP request's _meta carries (traceparent, tracestate), passed on to every
 * request to the service made for it (a task's wait too: it starts inside). */
function traced<T>(extra: { _meta?: Record<string, unknown> | undefined }, fn: () => T): T {
  return withTrace(traceFrom(extra._meta?.traceparent, extra._meta?.tracestate), fn);
}

/** A tool's answer as MCP gives it: the text first, then any links, and the structured result. */
function answered({ text, data, links }: Awaited<ToolAnswer>): CallToolResult {
  return { content: [{ type: 'text', text }, ...(links ?? [])], structuredContent: data };
}

/** Each run, its spec, and its artifacts' files as resources an agent (or its user) can read. */
function registerResources(server: McpServer, api: Api, clock: Clock): void {
  server.registerResource(
    'artifact',
    new ResourceTemplate(ARTIFACT_URI, { list: undefined }),
    { title: "A file of a run's artifacts (screenshots, ipa), up to 7 MiB" },
    (uri, vars, extra) => traced(extra, () => reading(vars, () => readArtifact(api, clock, uri, vars, extra.signal))),
  );
  server.registerResource(
    'run',
    new ResourceTemplate('orc://runs/{id}', {
      list: (extra) =>
        traced(extra, async () => ({
          resources: (await api.runs.list({ limit: 20 })).data.map((r) => ({
            uri: `orc://runs/${r.id}`,
            name: r.id,
            description: `${r.status} at ${r.stage}`,
            mimeType: 'application/json',
          })),
        })),
    }),
    { title: 'A run and its gates', mimeType: 'application/json' },
    (uri, vars, extra) =>
      traced(extra, () =>
        reading(vars, async () => {
          const id = String(vars.id);
          const [run, gates] = await Promise.all([api.runs.retrieve(id), api.gates.list(id)]);
          return {
            contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ run, gates }, null, 2) }],
          };
        }),
      ),
  );
  server.registerResource(
    'spec',
    new ResourceTemplate('orc://runs/{id}/spec', { list: undefined }),
    { title: 'The App Spec of a run', mimeType: 'application/json' },
    (uri, vars, extra) =>
      traced(extra, () =>
        reading(vars, async () => ({
          contents: [
            {
              uri: uri.href,
              mimeType: 'application/json',
              text: JSON.stringify(await api.spec.retrieve(String(vars.id)), null, 2),
            },
          ],
        })),
      ),
  );
}

/** wait_for_run as a task where the client asks for one (taskSupport optional): the wait runs in the
 * background and its result is stored; a call without a task is answered when the wait ends, as before. */
function registerWaitTask(server: McpServer, t: ToolDef, tasks: WaitTasks): RegisteredTool {
  return server.experimental.tasks.registerToolTask(
    t.name,
    {
      title: t.title,
      description: `${t.description} Runs as an MCP task where the client supports tasks.`,
      inputSchema: t.input,
      outputSchema: z.looseObject(t.output),
      annotations: t.annotations,
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: (args: Record<string, unknown>, extra) =>
        traced(extra, async () => {
          // A task is kept at least as long as its wait, and a minute after to fetch its result: one the store
          // forgot earlier would hold its wait's place and stream with nothing left to cancel.
          const waitMs = (typeof args.timeout_s === 'number' ? args.timeout_s : WAIT_S) * 1000;
          const task = await extra.taskStore.createTask({
            ttl: Math.max(extra.taskRequestedTtl ?? 60 * 60_000, waitMs + 60_000),
            pollInterval: 100,
          });
          // (counted and taken with no await between: two calls at once cannot both take the last place)
          const stop = tasks.begin(task.taskId);
          void (async () => {
            let result: CallToolResult;
            try {
              if (!stop) throw tooManyWaits(tasks.max);
              const signal = AbortSignal.any([extra.signal, stop]);
              result = answered(await t.run(args, { ...extra, signal } as unknown as Extra));
            } catch (err) {
              result = toolError(err);
            } finally {
              tasks.end(task.taskId);
            }
            await extra.taskStore
              .storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result)
              .catch(() => {});
          })();
          return { task };
        }),
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
    },
  );
}

/** A resource read of a URI whose parts (`vars`) are each at most ID_MAX, whose failure is the JSON-RPC error MCP
 * gives: a run or file the service does not have is
 * -32002 (resource not found), another service error -32603 with its code; the message said once (an
 * McpError's own message starts "MCP error <code>:", which the client's adds again). */
async function reading<T>(vars: Record<string, string | string[]>, read: () => Promise<T>): Promise<T> {
  // (as the tools' ids: nothing longer than any id the service makes goes into a URL)
  for (const [name, v] of Object.entries(vars))
    if (String(v).length > ID_MAX)
      throw Object.assign(new Error(`${name} is longer than ${ID_MAX} characters, more than any the service makes`), {
        code: ErrorCode.InvalidParams,
      });
  try {
    return await read();
  } catch (err) {
    if (err instanceof McpError)
      throw Object.assign(new Error(err.message.replace(/^MCP error -?\d+: /, '')), { code: err.code, data: err.data });
    if (err instanceof ApiError) {
      const said = `${err.code}: ${err.message}${err.requestId ? ` [request ${err.requestId}]` : ''}`;
      throw Object.assign(new Error(said), { code: err.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InternalError });
    }
    throw err;
  }
}

/** A wait refused for the waits this server holds (its task fails with this, as a plain call's result). */
function tooManyWaits(max: number): Problem {
  return Object.assign(
    new Problem(
      `this client holds ${max} wait_for_run waits open, the most one may; wait for one to end, or cancel one (tasks/cancel)`,
    ),
    { code: 'too_many_waits' },
  );
}

/** A service error as a tool error the model can read: the code and the message, the field and the request
 * id if any. As text only: structured content is the tool's result, in the shape its output schema gives. */
function toolError(err: unknown): CallToolResult {
  if (err instanceof ApiError) {
    const text = `${err.code}: ${err.message}${err.field ? ` (field ${err.field})` : ''}${err.requestId ? ` [request ${err.requestId}]` : ''}`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
  const code = err instanceof Problem ? ((err as { code?: string }).code ?? err.constructor.name) : 'internal_error';
  const message = (err as Error)?.message ?? String(err);
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
}

/** Follows the run until a gate waits, it ends, or the time is up; progress as notifications. */
function waitForRunTool(api: Api, clock: Clock, id: string, timeoutMs: number, extra: Extra): ToolAnswer {
  return new RunWait(api, clock, id, extra).until(timeoutMs);
}

/** One wait_for_run: where the run stood when asked, and how far its progress has been told. */
class RunWait {
  private readonly started: number;
  private readonly token: string | number | undefined;
  private progress = 0;
  private reached = { stage: '', percent: -1 };

  constructor(
    private readonly api: Api,
    private readonly clock: Clock,
    private readonly id: string,
    private readonly extra: Extra,
  ) {
    this.started = clock.now();
    this.token = extra._meta?.progressToken;
  }

  async until(timeoutMs: number): ToolAnswer {
    const { api, id, clock, extra } = this;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    extra.signal.addEventListener('abort', onAbort, { once: true });
    const cancelTimer = clock.timer(Math.max(0, timeoutMs - (clock.now() - this.started)), () => stop.abort());
    try {
      const run = await waitForRun(api, id, {
        until: 'gate',
        signal: stop.signal,
        started: (now) => {
          this.reached = { stage: now.stage, percent: -1 };
        },
        onEvent: (e) => (e.type === 'run.stage_changed' ? this.moved(e.data) : undefined),
      });
      if (!run) return this.stoppedWaiting();
      return run.status === 'awaiting_approval' && run.gate_pending ? this.atGate(run.gate_pending) : this.ended(run);
    } finally {
      cancelTimer();
      extra.signal.removeEventListener('abort', onAbort);
    }
  }

  /** The stream replays the run's history first: progress is told only as it moves past where the run stood
   * (stages sort by their number), never back to 01_intake at each call. */
  private async moved(d: Event['data']): Promise<void> {
    const at = { stage: d.stage ?? '', percent: d.percent ?? 0 };
    const { reached } = this;
    if (at.stage > reached.stage || (at.stage === reached.stage && at.percent > reached.percent)) {
      this.reached = at;
      await this.notify(`${at.stage} ${at.percent}%`.trim());
    }
  }

  private async notify(message: string): Promise<void> {
    if (this.token === undefined) return;
    await this.extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: this.token, progress: ++this.progress, message },
      })
      .catch(() => {});
  }

  /** The stream stopped (the time is up, or the client cancelled): where the run is now. */
  private async stoppedWaiting(): ToolAnswer {
    const { id, clock, started } = this;
    const run = await this.api.runs.retrieve(id);
    if (run.status === 'awaiting_approval' && run.gate_pending) return this.atGate(run.gate_pending);
    if (TERMINAL_STATUSES.has(run.status)) return this.ended(run);
    return {
      text: `${id} is still ${run.status} at ${run.stage} after ${Math.round((clock.now() - started) / 1000)} s; call wait_for_run again to go on waiting.`,
      data: { outcome: 'timeout', run, waited_ms: clock.now() - started },
    };
  }

  private async atGate(gateName: string): ToolAnswer {
    const { api, id } = this;
    // What is being decided is fetched once (the spec or the scorecard), for the text and the data alike.
    const [run, what] = await Promise.all([api.runs.retrieve(id), deciding(api, id, gateName)]);
    return {
      text: `${id} waits at gate ${gateName} (stage ${run.stage}). ${decidingText(what)}`,
      data: {
        outcome: 'gate_pending',
        gate: gateName,
        run,
        deciding: what,
        waited_ms: this.clock.now() - this.started,
      },
    };
  }

  private ended(run: Run) {
    return {
      text: `${this.id} ended ${run.status} at ${run.stage}${run.app_id ? ` (app ${run.app_id})` : ''}.`,
      data: { outcome: 'ended', status: run.status, run, waited_ms: this.clock.now() - this.started },
    };
  }
}

/** What a gate decides, as data: the idea's summary, the brand, or the scorecard. */
type Deciding = { scorecard: Scorecard } | { brand: AppSpec['brand'] | null } | { summary: Summary };
type Summary = Pick<AppSpec, keyof typeof SUMMARY>;

async function deciding(api: Api, id: string, gateName: string): Promise<Deciding> {
  if (gateName === 'final') return { scorecard: await api.runs.scorecard(id) };
  const spec = await api.spec.retrieve(id);
  if (gateName === 'brand') return { brand: spec.brand ?? null };
  return { summary: Object.fromEntries(Object.keys(SUMMARY).map((k) => [k, spec[k]])) as Summary };
}

type Advice = { field?: string | null; hint?: string | null; detail?: string | null; suggestion?: unknown };
const LOOP_ADVICE = 'Set each suggestion at its field with update_spec, then reject_gate final with notes to rework.';

/** One reason as a model reads it: the field, what to change there (what it is, in brackets), a value that passes. */
function adviceLine(label: string, a: Advice): string {
  const what = a.field ? `${a.field}: ${a.hint ?? a.detail ?? label} (${label})` : `${label}: ${a.detail ?? ''}`;
  const value =
    a.suggestion === undefined || a.suggestion === null ? '' : `; suggestion ${JSON.stringify(a.suggestion)}`;
  return `- ${what}${value}`;
}

/** Why a scorecard did not pass: its failing checks, or, the pre-flight passing, the parts of the score that
 * weigh it down most (lowest first), so an agent that fixed every check still knows what to change. */
function failingText(card: Scorecard): string {
  const failing = card.preflight.checks.filter((c) => c.status === 'fail');
  if (failing.length > 0)
    return ` Pre-flight failed:\n${failing.map((c) => adviceLine(c.title, c)).join('\n')}\n${LOOP_ADVICE}`;
  if (!card.preflight.passed) return ' Pre-flight failed.';
  const low = card.passed
    ? []
    : (card.components ?? [])
        .filter((c) => c.hint)
        .sort((a, b) => a.value - b.value)
        .slice(0, 3);
  if (low.length === 0) return ' Pre-flight passed.';
  const lines = low.map((c) => adviceLine(`${c.name} ${c.value}/100`, c));
  return ` Pre-flight passed; the parts that weigh the score down:\n${lines.join('\n')}\n${LOOP_ADVICE}`;
}

function decidingText(d: Deciding): string {
  if ('scorecard' in d) {
    const c = d.scorecard;
    return `Deciding the final app: score ${c.score.score}/${c.score.total} (beauty ${c.score.beauty}, harmony ${c.score.harmony}), ${c.passed ? 'passed' : 'did not pass'}.${failingText(c)}`;
  }
  if ('brand' in d) {
    const b = d.brand ?? {};
    return `Deciding the brand: palette ${(b.palette ?? []).join(', ') || '—'}; typeface ${b.typeface ?? '—'}; voice ${b.voice ?? '—'}.`;
  }
  const s = d.summary;
  return `Deciding the idea: ${s.name ?? '—'}, "${s.tagline ?? ''}", for ${s.audience ?? '—'}, ${s.monetization ?? '—'}; features: ${(s.features ?? []).join(', ') || '—'}.`;
}
