// Artifacts as an agent gets them through MCP: a JSON kind inline, screenshots and the ipa as resource links
// (size and sha256 as the manifest says) that read back as the very bytes, and a file past the read cap
// refused with a message naming pull_artifacts. The server in process, the SDK's client, a sandbox on a
// manual clock (a run driven to its end).
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_CAP_BYTES } from '../../src/mcp/artifacts.js';
import { startSandbox } from '../../src/sdk/testing.js';
import { inProcessMcp } from '../helpers/mcp.js';

const IDEA = { pitch: 'A habit tracker for runners', audience: 'runners', monetization: 'freemium' } as const;
type Link = { type: string; uri: string; name: string; mimeType: string; size: number; _meta?: { sha256?: string } };
type Result = {
  isError?: boolean;
  content: Array<{ type: string; text?: string } & Partial<Link>>;
  structuredContent?: any;
};

/** A sandbox with a run at its end, and an SDK client connected to orc's MCP server aimed at it. */
async function ended(ipaMib: number) {
  const sb = await startSandbox({ clock: 'manual', stageMs: 3_600_000, ipaMib });
  const run = (await sb.client.runs.create({ mode: 'idea', idea: IDEA })).id;
  await sb.advance({ run, to: 'end' });
  const mcp = await inProcessMcp({ baseUrl: sb.url, apiKey: sb.apiKey });
  const client = mcp.client;
  const close = async () => {
    await mcp.close();
    await sb.stop();
  };
  return { sb, run, client, close };
}

let big: Awaited<ReturnType<typeof ended>>;
let small: Awaited<ReturnType<typeof ended>>;
beforeAll(async () => {
  [big, small] = await Promise.all([ended(9), ended(1)]);
});
afterAll(() => Promise.all([big?.close(), small?.close()]));

const call = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = (await c.callTool({ name, arguments: args })) as Result;
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return r;
};
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const manifestOf = async (t: typeof big, kind: string) =>
  (await t.sb.client.artifacts.list(t.run)).find((e: { kind: string }) => e.kind === kind)!;

describe('get_artifact and the artifact resource', () => {
  it('gives screenshots as resource links whose size and sha256 are the manifest’s, and no bytes', async () => {
    const r = await call(big.client, 'get_artifact', { run_id: big.run, kind: 'screenshots' });
    const links = r.content.filter((c) => c.type === 'resource_link') as Link[];
    expect(links.length).toBeGreaterThan(0);
    expect(r.content.every((c) => c.type === 'text' || c.type === 'resource_link')).toBe(true);
    const listed = (await big.sb.client.artifacts.retrieve(big.run, 'screenshots')) as { files: any[] };
    expect(links.map((l) => [l.name, l.size, l._meta?.sha256, l.mimeType])).toEqual(
      listed.files.map((f) => [f.name, f.size, f.sha256, f.content_type]),
    );
    const entry = await manifestOf(big, 'screenshots');
    expect(links.reduce((n, l) => n + l.size, 0)).toBe(entry.size);
    expect(links[0]!.uri).toBe(`orc://runs/${big.run}/artifacts/screenshots/${encodeURIComponent(links[0]!.name)}`);
    expect(r.structuredContent.files.map((f: any) => f.uri)).toEqual(links.map((l) => l.uri));
  });

  it('reads a screenshot link as a blob whose sha256 is the link’s', async () => {
    const r = await call(big.client, 'get_artifact', { run_id: big.run, kind: 'screenshots' });
    const link = r.content.find((c) => c.type === 'resource_link') as Link;
    const read = await big.client.readResource({ uri: link.uri });
    const got = read.contents[0] as { blob: string; mimeType: string; uri: string };
    expect(got.mimeType).toBe('image/png');
    const bytes = Buffer.from(got.blob, 'base64');
    expect(bytes.length).toBe(link.size);
    expect(sha256(bytes)).toBe(link._meta!.sha256);
  });

  it('gives a JSON kind inline, as structured content and text', async () => {
    const r = await call(big.client, 'get_artifact', { run_id: big.run, kind: 'scorecard' });
    expect(r.content.map((c) => c.type)).toEqual(['text']);
    const served = (await big.sb.client.artifacts.retrieve(big.run, 'scorecard')) as { content: unknown };
    expect(r.structuredContent).toEqual({
      kind: 'scorecard',
      content_type: 'application/json',
      content: served.content,
    });
    expect(JSON.parse(r.content[0]!.text!)).toEqual(served.content);
  });

  it('refuses to read an ipa above 7 MiB, naming pull_artifacts; reads a small one whole', async () => {
    const bigIpa = (await call(big.client, 'get_artifact', { run_id: big.run, kind: 'ipa' })).content.find(
      (c) => c.type === 'resource_link',
    ) as Link;
    expect(bigIpa.size).toBe((await manifestOf(big, 'ipa')).size);
    await expect(big.client.readResource({ uri: bigIpa.uri })).rejects.toThrow(/more than the 7 MiB.*pull_artifacts/);
    const ipa = (await call(small.client, 'get_artifact', { run_id: small.run, kind: 'ipa' })).content.find(
      (c) => c.type === 'resource_link',
    ) as Link;
    const got = (await small.client.readResource({ uri: ipa.uri })).contents[0] as { blob: string };
    expect(sha256(Buffer.from(got.blob, 'base64'))).toBe((await manifestOf(small, 'ipa')).sha256);
  });

  it('a resource of a run or file the service does not have is -32002, its reason said once; a too long id -32602', async () => {
    const gone = 'run_00000000000000000000';
    for (const uri of [`orc://runs/${gone}`, `orc://runs/${gone}/spec`, `orc://runs/${gone}/artifacts/ipa/app.ipa`]) {
      const err = (await small.client.readResource({ uri }).catch((e: unknown) => e)) as McpError;
      expect(err, uri).toBeInstanceOf(McpError);
      expect(err.code, uri).toBe(-32002);
      expect(err.message.match(/MCP error/g), uri).toHaveLength(1);
      expect(err.message, uri).toContain('run_not_found');
    }
    const wrong = `orc://runs/${small.run}/artifacts/screenshots/nothing.png`;
    const err = (await small.client.readResource({ uri: wrong }).catch((e: unknown) => e)) as McpError;
    expect(err.code).toBe(-32002);
    expect(err.message).toBe(`MCP error -32002: screenshots/nothing.png is not a file of ${small.run}`);
    const long = `orc://runs/run_${'x'.repeat(20_000)}`;
    const tooLong = (await small.client.readResource({ uri: long }).catch((e: unknown) => e)) as McpError;
    expect(tooLong.code).toBe(-32602);
    expect(tooLong.message).toBe('MCP error -32602: id is longer than 255 characters, more than any the service makes');
  });

  it('reads at most what an MCP client over stdio takes in one message (10 MiB; base64 is a third larger)', () => {
    const encoded = Math.ceil(READ_CAP_BYTES / 3) * 4;
    expect(encoded + 4096).toBeLessThan(STDIO_DEFAULT_MAX_BUFFER_SIZE);
  });

  it('declares whole output schemas: the manifest’s fields, a pulled file’s, a link’s', async () => {
    const { tools } = await small.client.listTools();
    const out = (name: string) => tools.find((t) => t.name === name)!.outputSchema as any;
    const fields = (o: any) => Object.keys(o.items.properties).sort();
    expect(fields(out('list_artifacts').properties.artifacts)).toEqual(
      ['content_type', 'files', 'kind', 'sha256', 'size', 'status', 'updated_at'].sort(),
    );
    expect(fields(out('pull_artifacts').properties.files)).toEqual(
      ['kind', 'name', 'path', 'sha256', 'size', 'state'].sort(),
    );
    expect(fields(out('get_artifact').properties.files)).toEqual(
      ['content_type', 'name', 'sha256', 'size', 'uri'].sort(),
    );
  });
});
