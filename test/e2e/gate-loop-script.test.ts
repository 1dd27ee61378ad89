// The gate loop as docs/guide.md gives it ("The gate loop in a script"): that exact block, run by bash with the
// built orc on the PATH, against a sandbox on port 0 and a fresh config folder, takes a #lowscore run to accepted.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigDir, NO_PROXIES, ORC_BIN } from '../helpers/cli.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const HEADING = '## The gate loop in a script';

/** The first ```sh block under the heading, as the reader copies it. */
function guideScript(): string {
  const guide = readFileSync(new URL('../../docs/guide.md', import.meta.url), 'utf8');
  const section = guide.slice(guide.indexOf(HEADING));
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(section);
  if (!guide.includes(HEADING) || !block) throw new Error(`docs/guide.md has no sh block under "${HEADING}"`);
  return `${block[1]}\n`;
}

/** A folder holding `orc`: the built one, on the Node that runs the tests. */
function orcOnPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'orc-bin-'));
  writeFileSync(join(dir, 'orc'), `#!/bin/sh\nexec "${process.execPath}" "${ORC_BIN}" "$@"\n`);
  chmodSync(join(dir, 'orc'), 0o755);
  return dir;
}

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

describe('the gate loop in a script (docs/guide.md)', () => {
  it('takes a #lowscore run to accepted from the failing checks alone, with --json and --jq', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orc-gate-loop-'));
    writeFileSync(join(dir, 'gate-loop.sh'), guideScript());
    const r = await execa('bash', ['gate-loop.sh'], {
      cwd: dir,
      extendEnv: false,
      env: {
        ...NO_PROXIES,
        PATH: `${orcOnPath()}:/usr/bin:/bin`,
        HOME: dir,
        ORC_CONFIG_DIR: freshConfigDir(),
        ORC_BASE_URL: sb.url,
        ORC_API_KEY: KEY,
        ORC_NO_KEYCHAIN: '1',
      },
      input: '',
      reject: false,
      timeout: 150_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const runId = /^(run_\S+) accepted$/m.exec(r.stdout)?.[1];
    expect(runId, r.stdout).toBeDefined();
    // The script said what failed, one line per check (field: hint), before it patched them.
    expect(r.stderr).toMatch(/^name: .+$/m);
    expect(r.stderr).toMatch(/^brand\.palette: .+$/m);

    expect((await sb.call('GET', `/v1/runs/${runId}`)).body.status).toBe('accepted');
    const gates = (await sb.call('GET', `/v1/runs/${runId}/gates`)).body.data;
    expect(gates.find((g: { name: string }) => g.name === 'final')).toMatchObject({ state: 'approved' });
    const card = (await sb.call('GET', `/v1/runs/${runId}/scorecard`)).body;
    expect(card.passed).toBe(true);
    const spec = (await sb.call('GET', `/v1/runs/${runId}/spec`)).body;
    expect(spec.name.length).toBeLessThanOrEqual(30);
  }, 180_000);
});
