// `orc verify` through the built orc against an `orc sandbox start` process (manual clock): a run taken to
// its end, then verify clean in text and as --json, exit 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orc, startSandboxProcess, type OrcProcess } from '../helpers/cli.js';

let url: string;
let proc: OrcProcess;
beforeAll(async () => {
  ({ url, proc } = await startSandboxProcess(['--port', '0', '--clock', 'manual']));
  const env = { ORC_BASE_URL: url };
  const made = await orc(
    [
      'api',
      'POST',
      '/v1/runs',
      '-f',
      'mode=idea',
      '-f',
      'idea.pitch=Verified',
      '-f',
      'idea.audience=all',
      '-f',
      'idea.monetization=free',
    ],
    { env },
  );
  expect(made.exitCode, made.stderr).toBe(0);
  const advanced = await orc(['sandbox', 'advance', JSON.parse(made.stdout).id, '--to', 'end'], { env });
  expect(advanced.exitCode, advanced.stderr).toBe(0);
});
afterAll(async () => {
  proc.kill('SIGTERM');
  await proc;
});

describe('orc verify, built', () => {
  it('is clean against the sandbox: "matches the contract", and --json gives the report, exit 0', async () => {
    const text = await orc(['verify'], { env: { ORC_BASE_URL: url } });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^\d+ checks: matches the contract$/);
    const json = await orc(['verify', '--json'], { env: { ORC_BASE_URL: url } });
    expect(json.exitCode, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(Object.keys(report).sort()).toEqual(['checked', 'divergences', 'skipped', 'target', 'wrote']);
    expect(report).toMatchObject({ target: url, divergences: [], wrote: false });
    expect(report.checked).toContain('GET /v1/runs/{id}/scorecard');
    expect(report.checked).toContain('SSE /v1/runs/{id}/events');
  });
});

describe('orc verify --write, built', () => {
  // A sandbox whose time flows (a delivery answered 500 is retried after ~20 ms), no run moving on its own.
  let wurl: string;
  let wproc: OrcProcess;
  beforeAll(async () => {
    ({ url: wurl, proc: wproc } = await startSandboxProcess([
      '--port',
      '0',
      '--retry-base-ms',
      '20',
      '--stage-ms',
      '1h',
    ]));
  });
  afterAll(async () => {
    wproc.kill('SIGTERM');
    await wproc;
  });

  it('--write --json is clean against the sandbox: wrote, the write operations checked, exit 0', async () => {
    const env = { ORC_BASE_URL: wurl };
    const r = await orc(['verify', '--write', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ target: wurl, divergences: [], wrote: true });
    expect(report.checked).toEqual(
      expect.arrayContaining([
        'POST /v1/runs',
        'POST /v1/runs/{id}/cancel',
        'WEBHOOK run.created',
        'DELETE /v1/webhooks/{id}',
      ]),
    );
    const hooks = await orc(['api', 'GET', '/v1/webhooks'], { env });
    expect(JSON.parse(hooks.stdout).data).toEqual([]);
  });
});
