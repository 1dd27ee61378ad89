// A run's artifacts as MCP gives them to an agent: the JSON kinds inline, the files (screenshots, the ipa) as
// resource links to orc://runs/{id}/artifacts/{kind}/{name}, read through the pull engine (sha256 checked) and
// capped, so no tool result carries a file's bytes and no read holds more than the cap in memory.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, McpError, type ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Api } from '../api/index.js';
import { JSON_ARTIFACT_KINDS } from '../contract/events.js';
import type { Clock } from '../lib/clock.js';

/** The resource template a file's link points at. */
export const ARTIFACT_URI = 'orc://runs/{id}/artifacts/{kind}/{name}';
/** MCP's code for a resource that is not there (the spec's, not among the SDK's ErrorCode). */
export const RESOURCE_NOT_FOUND = -32002;
/** The most a resource read returns; past it, pull_artifacts. Base64 makes it a third larger on the wire, and an
 * MCP client over stdio reads a message of at most 10 MiB (the SDK's bound): 7 MiB is 9.3 MiB encoded. */
export const READ_CAP_BYTES = 7 << 20;

/** get_artifact's structured result: one kind, its content inline or its files as links. */
export const artifactOut = {
  kind: z.string(),
  content_type: z.string().optional().describe('A JSON kind: application/json'),
  content: z.unknown().optional().describe('A JSON kind (metadata, scorecard, preflight, spec): the document'),
  files: z
    .array(
      z.looseObject({
        name: z.string(),
        content_type: z.string(),
        size: z.number(),
        sha256: z.string().nullable(),
        uri: z.string().describe('The resource to read (resources/read), at most 7 MiB'),
      }),
    )
    .optional()
    .describe('screenshots or ipa: each file, also given as a resource_link'),
};

interface FileEntry {
  name: string;
  content_type: string;
  size: number;
  sha256: string | null;
}

export function artifactUri(runId: string, kind: string, name: string): string {
  return `orc://runs/${encodeURIComponent(runId)}/artifacts/${encodeURIComponent(kind)}/${encodeURIComponent(name)}`;
}

/** get_artifact: a JSON kind whole, or the files of a binary kind as links (with size and sha256). */
export async function getArtifact(api: Api, runId: string, kind: string) {
  const art = (await api.artifacts.retrieve(runId, kind)) as { content?: unknown; files?: FileEntry[] };
  if (JSON_ARTIFACT_KINDS.has(kind)) {
    const data = { kind, content_type: 'application/json', content: art.content ?? null };
    return { text: JSON.stringify(data.content), data };
  }
  const files = (art.files ?? []).map((f) => ({
    name: f.name,
    content_type: f.content_type,
    size: f.size,
    sha256: f.sha256,
    uri: artifactUri(runId, kind, f.name),
  }));
  const links: ResourceLink[] = files.map((f) => ({
    type: 'resource_link',
    uri: f.uri,
    name: f.name,
    mimeType: f.content_type,
    size: f.size,
    description: `${kind} of ${runId}, ${f.size} bytes${f.size > READ_CAP_BYTES ? ': too large to read; pull_artifacts writes it to disk' : ''}`,
    ...(f.sha256 ? { _meta: { sha256: f.sha256 } } : {}),
  }));
  const text = files.length
    ? files.map((f) => `${f.uri} (${f.content_type}, ${f.size} bytes)`).join('\n')
    : `${kind} of ${runId} has no files.`;
  return { text, data: { kind, files }, links };
}

/** One file of a run, read through the pull engine into a folder of its own (removed after), as a blob;
 * refused before a byte is fetched when it is not a file of the run or is larger than the cap. */
export async function readArtifact(
  api: Api,
  clock: Clock,
  uri: URL,
  vars: Record<string, string | string[]>,
  signal: AbortSignal,
) {
  const [runId, kind, name] = [vars.id, vars.kind, vars.name].map((v) => decodeURIComponent(String(v))) as [
    string,
    string,
    string,
  ];
  if (JSON_ARTIFACT_KINDS.has(kind))
    throw new McpError(ErrorCode.InvalidParams, `${kind} is a JSON kind: get_artifact gives it inline`);
  const art = (await api.artifacts.retrieve(runId, kind)) as { files?: FileEntry[] };
  const f = art.files?.find((x) => x.name === name);
  if (!f) throw new McpError(RESOURCE_NOT_FOUND, `${kind}/${name} is not a file of ${runId}`);
  if (f.size > READ_CAP_BYTES)
    throw new McpError(
      ErrorCode.InvalidParams,
      `${kind}/${name} is ${f.size} bytes, more than the ${READ_CAP_BYTES >> 20} MiB a resource read returns; pull_artifacts writes it to disk`,
    );
  const { pullArtifacts } = await import('../artifacts/pull.js');
  const dir = await mkdtemp(join(tmpdir(), 'orc-mcp-read-'));
  try {
    const got = await pullArtifacts(api, runId, { kinds: [kind], names: [name], dir, concurrency: 1, signal, clock });
    const failed = got.failed[0];
    if (failed || !got.files[0])
      throw new McpError(ErrorCode.InternalError, `${kind}/${name}: ${failed?.error ?? 'not pulled'}`);
    const blob = (await readFile(got.files[0].path)).toString('base64');
    return { contents: [{ uri: uri.href, mimeType: f.content_type, blob }] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
