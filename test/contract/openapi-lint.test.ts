// The OpenAPI document through the linters third-party tools trust: Spectral (spectral:oas) and Redocly
// (recommended), from node_modules, offline (no remote ruleset, Redocly's telemetry and update check off).
// No error, and no warning but the ones the generator justifies (LINT_JUSTIFIED), each of which still fires.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { LINT_JUSTIFIED, openApiDocument } from '../../src/contract/openapi.js';

const run = promisify(execFile);
const bin = (name: string) => resolve(import.meta.dirname, '../../node_modules/.bin', name);
const dir = mkdtempSync(join(tmpdir(), 'orc-oas-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  NO_COLOR: '1',
};

function write(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

/** Runs a linter that exits non-zero when it finds problems; its JSON report is on stdout either way. */
async function report(cmd: string, args: string[]): Promise<string> {
  try {
    return (await run(cmd, args, { env, cwd: dir, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    if (!e.stdout) throw new Error(`${cmd} failed: ${e.stderr}`);
    return e.stdout;
  }
}

/** What a linter reported that the generator does not justify where it fired, and which justified places it
 * no longer reports: each rule's places are compared exactly, so a justification covers no more than it names. */
function judge(tool: 'spectral' | 'redocly', found: Array<{ rule: string; at: string; message: string }>) {
  const justified = LINT_JUSTIFIED.filter((j) => j.tool === tool);
  const covers = (f: { rule: string; at: string }) => justified.some((j) => j.rule === f.rule && j.at.includes(f.at));
  return {
    unjustified: found.filter((f) => !covers(f)).map((f) => `${f.rule} at ${f.at}: ${f.message}`),
    stale: justified.flatMap((j) =>
      j.at
        .filter((at) => found.filter((f) => f.rule === j.rule && f.at === at).length !== 1)
        .map((at) => `${j.rule} at ${at}`),
    ),
  };
}

describe('the OpenAPI document, linted', () => {
  it('justifies a warning only where the table names it, once there', () => {
    const at = (rule: string, where: string) => ({ rule, at: where, message: 'm' });
    expect(judge('spectral', [at('info-contact', 'info'), at('info-contact', 'paths./v1/runs.get')])).toMatchObject({
      unjustified: ['info-contact at paths./v1/runs.get: m'],
    });
    expect(judge('redocly', [at('info-license', '#/info'), at('info-license', '#/info')]).stale).toEqual([
      'info-license at #/info',
    ]);
    expect(judge('redocly', []).stale).toEqual(['info-license at #/info']);
  });

  it('passes Spectral (spectral:oas) with only the justified warnings', { timeout: 120_000 }, async () => {
    const ruleset = write('.spectral.yaml', 'extends: ["spectral:oas"]\n');
    const file = write('openapi.json', openApiDocument('test'));
    const out = await report(bin('spectral'), ['lint', '--ruleset', ruleset, '--format', 'json', '--quiet', file]);
    const found = (JSON.parse(out) as Array<{ code: string; path: string[]; message: string }>).map((r) => ({
      rule: r.code,
      at: r.path.join('.'),
      message: r.message,
    }));
    expect(judge('spectral', found)).toEqual({ unjustified: [], stale: [] });
  });

  // Redocly reads 3.2 too: both dialects are linted (Spectral 6 knows no 3.2).
  it.each(['3.1', '3.2'] as const)(
    'passes Redocly (recommended) with only the justified warnings: OpenAPI %s',
    { timeout: 120_000 },
    async (oas) => {
      const config = write('redocly.yaml', 'extends:\n  - recommended\ntelemetry: off\n');
      const file = write(`openapi-${oas}.json`, openApiDocument('test', oas));
      const out = await report(bin('redocly'), ['lint', '--config', config, '--format', 'json', file]);
      const problems = (JSON.parse(out) as { problems: any[] }).problems;
      const found = problems.map((p) => ({ rule: p.ruleId, at: p.location?.[0]?.pointer ?? '', message: p.message }));
      expect(judge('redocly', found)).toEqual({ unjustified: [], stale: [] });
    },
  );
});
