// `orc api`, `orc help` and `orc doctor` through the built orc, against a sandbox on port 0, as a user runs them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { freshConfigDir, orc, ORC_BIN } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 60_000 });
});
afterAll(() => sb.close());

describe('the built orc', () => {
  it('orc api: a POST with -f, then every page with --paginate; a 404 is exit 3 with the envelope on stderr', async () => {
    const env = { ORC_BASE_URL: sb.url };
    const created = await orc(
      [
        'api',
        'POST',
        '/v1/runs',
        '-f',
        'mode=idea',
        '-f',
        'idea.pitch=Through api',
        '-f',
        'idea.audience=all',
        '-f',
        'idea.monetization=free',
      ],
      { env },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).id;
    const all = await orc(['api', 'GET', '/v1/runs?limit=1', '--paginate'], { env });
    const items = JSON.parse(all.stdout);
    expect(items.map((r: { id: string }) => r.id)).toContain(id);
    expect(items.length).toBe((await sb.call('GET', '/v1/runs?limit=100')).body.data.length);
    const missing = await orc(['api', 'GET', '/v1/runs/run_missing'], { env });
    expect(missing.exitCode).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('"code": "run_not_found"');
  });

  it('a reader that goes away (`| head`) ends orc quietly: exit 0, no EPIPE stack', async () => {
    // More than a pipe holds (64 KiB), so orc is still writing when the reader has gone.
    for (let i = 0; i < 8; i++)
      await Promise.all(Array.from({ length: 50 }, (_, j) => sb.createRun(`Read by head ${i}-${j}`)));
    for (const args of [
      ['run', 'list', '--all', '--json'],
      ['api', 'GET', '/v1/runs?limit=100', '--paginate'],
    ]) {
      const line = `'${process.execPath}' '${ORC_BIN}' ${args.map((a) => `'${a}'`).join(' ')} | head -c 1 > /dev/null; echo "\${PIPESTATUS[0]}"`;
      const r = await execa('bash', ['-c', line], {
        env: { ...process.env, ORC_BASE_URL: sb.url, ORC_CONFIG_DIR: freshConfigDir() },
        reject: false,
      });
      expect(r.stdout, `${args.join(' ')}: ${r.stderr}`).toBe('0');
      expect(r.stderr).toBe('');
    }
  });

  it('orc help <topic> and orc doctor', async () => {
    const codes = await orc(['help', 'exit-codes', '--json']);
    expect(JSON.parse(codes.stdout).map((c: { code: number }) => c.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 130]);
    const doctor = await orc(['doctor', '--json'], { env: { ORC_BASE_URL: sb.url } });
    expect(doctor.exitCode, doctor.stderr).toBe(0);
    const checks = JSON.parse(doctor.stdout).checks;
    expect(checks.find((c: { id: string }) => c.id === 'key').status).toBe('pass');
  });
});
