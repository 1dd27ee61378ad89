// What a new user tripped on (issue 22), each through the built orc against a real sandbox on a manual clock.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freshConfigDir, orc } from '../helpers/cli.js';
import { http, idea, manualSandbox } from '../helpers/steer.js';

const manual = manualSandbox();
const at = (args: string[]) => orc(args, { env: { ORC_BASE_URL: manual.url } });
/** The requests the sandbox answered whose path contains `part` (its journal). */
const requestsTo = async (part: string) =>
  (await http(manual.url, 'GET', '/_sandbox/logs')).body.data.filter(
    (e: { type: string; path?: string }) => e.type === 'request' && e.path?.includes(part),
  );

describe('a word that is not a command, topic, gate or kind', () => {
  it('is exit 2 with the nearest, preferring the one it begins: sandbox stat is status', async () => {
    const r = await orc(['sandbox', 'stat']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('did you mean status?');
    const lsit = await orc(['help', 'run', 'lsit']);
    expect(lsit.exitCode).toBe(2);
    expect(lsit.stderr).toContain('unknown command "lsit" for `orc run`; did you mean list?');
    expect(lsit.stdout).toBe('');
    const nonsense = await orc(['help', 'nonsense']);
    expect(nonsense.exitCode).toBe(2);
    expect(nonsense.stderr).toContain('no help topic or command "nonsense"');
    const json = await orc(['help', 'nonsense', '--json']);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'unknown_topic', exit_code: 2 });
  });

  it('orc help --json is data: the topics and the commands', async () => {
    const r = await orc(['help', '--json']);
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.topics.map((t: { name: string }) => t.name)).toContain('exit-codes');
    expect(out.commands.map((c: { usage: string }) => c.usage)).toContain('orc sandbox console [flags]');
  });

  it('an artifact kind or a gate with a slip is refused here, with the nearest, and nothing is sent', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Slips'))).body.id;
    const kind = await at(['artifacts', 'pull', id, 'screenshot', '--dir', freshConfigDir()]);
    expect(kind.exitCode).toBe(2);
    expect(kind.stderr).toContain('unknown artifact kind "screenshot"; did you mean screenshots?');
    const gate = await at(['gate', 'approve', id, 'launch']);
    expect(gate.exitCode).toBe(2);
    expect(gate.stderr).toContain('<gate>: unknown gate "launch"');
    expect(gate.stderr).toContain('one of idea, brand, final');
    const near = await at(['gate', 'approve', id, 'idae']);
    expect(near.stderr).toContain('did you mean idea?');
    expect(await requestsTo(`/v1/runs/${id}/artifacts`)).toEqual([]);
    expect(await requestsTo(`/v1/runs/${id}/gates`)).toEqual([]);
  });
});

describe('what is wrong with a field, said so', () => {
  it('spec edit --set: the type, the allowed values, and "did you mean" for a field that is not there; nothing sent', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Fields'))).body.id;
    const platforms = await at(['spec', 'edit', id, '--set', 'platforms=nope']);
    expect(platforms.exitCode).toBe(2);
    expect(platforms.stderr).toContain('platforms: must be an array, not a string');
    const money = await at(['spec', 'edit', id, '--set', 'monetization=lottery']);
    expect(money.exitCode).toBe(2);
    expect(money.stderr).toContain(
      'monetization: must be one of free, paid, freemium, subscription, ads, in_app_purchases, not "lottery"',
    );
    const typo = await at(['spec', 'edit', id, '--set', 'nme=Stride']);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('did you mean name?');
    expect(
      await requestsTo(`/v1/runs/${id}/spec`).then((rs) => rs.filter((e: { method: string }) => e.method === 'PATCH')),
    ).toEqual([]);
    expect((await http(manual.url, 'GET', `/v1/runs/${id}/spec`)).body.nme).toBeUndefined();
  });

  it('run create --source with a spec that has no name says name is required', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'orc-src-')), 'spec.json');
    writeFileSync(file, JSON.stringify({ tagline: 'No name' }));
    const r = await at(['run', 'create', '--source', file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--source (source.name): required');
  });
});

describe('words from the service, never written by hand', () => {
  it('scorecard on an unscored run names no stage of its own making', async () => {
    const id = (await http(manual.url, 'POST', '/v1/runs', idea('Unscored'))).body.id;
    const r = await at(['scorecard', id]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('has not been scored yet: it is running at stage 01_intake');
    expect(r.stderr).not.toMatch(/07_score\b/);
  });
});

describe('one order, one shape', () => {
  it('webhook deliveries: newest first, as every list', async () => {
    const hook = (
      await http(manual.url, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/h', events: ['run.created'] })
    ).body;
    for (const p of ['First', 'Second', 'Third']) await http(manual.url, 'POST', '/v1/runs', idea(p));
    const r = await at(['webhook', 'deliveries', hook.id, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const times = JSON.parse(r.stdout).map((d: { created_at: string }) => d.created_at);
    expect(times.length).toBe(3);
    expect([...times].sort().reverse()).toEqual(times);
    await http(manual.url, 'DELETE', `/v1/webhooks/${hook.id}`);
  });

  it('sandbox start --detach --json has the pid and data of a foreground start', async () => {
    const configDir = freshConfigDir();
    const r = await orc(['sandbox', 'start', '--detach', '--port', '0', '--memory', '--json'], { configDir });
    try {
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ listening: true, detached: true, data: ':memory:' });
      expect(out.pid).toBeGreaterThan(0);
      expect(((await fetch(`${out.url}/healthz`).then((x) => x.json())) as { pid: number }).pid).toBe(out.pid);
    } finally {
      await orc(['sandbox', 'stop'], { configDir });
    }
  });
});

describe('another program where the sandbox should be', () => {
  it('is named as such, with how to run the sandbox on another port (not "a body that is not JSON")', async () => {
    const other = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>another app</html>'),
    );
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as AddressInfo).port;
    try {
      const r = await orc(['run', 'list'], { env: { ORC_SANDBOX_PORT: String(port) } });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`something other than the orc sandbox answers at http://127.0.0.1:${port}`);
      expect(r.stderr).toContain(`ORC_SANDBOX_PORT=${port + 1}`);
    } finally {
      other.close();
    }
  });
});
