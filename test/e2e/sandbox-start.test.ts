// `orc sandbox start` in the foreground, run as built, as a user would: its address, its flags refused by
// name, a port in use, a folder it cannot write, a kill with nothing acknowledged lost.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import { freshConfigDir, orc, startSandboxProcess } from '../helpers/cli.js';
import { runOrc } from '../helpers/run.js';

import { KEY } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

const get = (url: string, path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('orc sandbox start', () => {
  it('listens on the port it prints, serves the API with its test key, and stops cleanly on SIGTERM', async () => {
    const configDir = freshConfigDir();
    const { url, proc } = await startSandboxProcess(['--port', '0', '--memory', '--stage-ms', '100'], { configDir });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await post(url, '/v1/runs', {
      mode: 'idea',
      idea: { pitch: 'p', audience: 'a', monetization: 'free' },
    });
    expect(created.status).toBe(201);
    expect((await get(url, '/v1/runs')).status).toBe(200);
    expect(existsSync(join(configDir, 'sandbox.json'))).toBe(true);
    proc.kill('SIGTERM');
    const r = await proc;
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(`listening on ${url}`); // stdout carries only the data line
    expect(r.stderr).toContain('SIGTERM');
    expect(r.stderr).toContain(' · stage 100 ms · ');
    expect(existsSync(join(configDir, 'sandbox.json'))).toBe(false);
  });

  it('says how long a stage takes as a duration: --stage-ms 3h is "stage 3 h", not in milliseconds', async () => {
    const { proc } = await startSandboxProcess(['--port', '0', '--memory', '--stage-ms', '3h']);
    proc.kill('SIGTERM');
    const r = await proc;
    expect(r.stderr).toContain(' · stage 3 h · ');
  });

  it('under --json prints one JSON line with its address instead', async () => {
    const proc = orc(['sandbox', 'start', '--port', '0', '--memory', '--json'], { timeout: 30_000 });
    const line = await new Promise<string>((resolveLine) => {
      let out = '';
      proc.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolveLine(out.split('\n')[0]!);
      });
    });
    const info = JSON.parse(line);
    expect(info).toMatchObject({
      listening: true,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      data: ':memory:',
    });
    expect((await fetch(`${info.url}/healthz`)).status).toBe(200);
    proc.kill('SIGTERM');
    expect((await proc).exitCode).toBe(0);
  });

  it.each([
    [['--port', 'abc'], '--port'],
    [['--port', '70000'], '--port'],
    [['--stage-ms', '0'], '--stage-ms'],
    [['--rate-limit', '-1'], '--rate-limit'],
    [['--seed', '1.5'], '--seed'],
    [['--api-key', 'sk_live_abcdef123456'], '--api-key'],
    [['--api-key', 'secret'], '--api-key'],
    [['--memory', '--data-dir', '/tmp/x'], '--memory'],
  ])('refuses %j with exit 2 naming %s, starting nothing', async (args, flag) => {
    const configDir = freshConfigDir();
    // The first through the built orc; the rest in process (the same check, without a process each).
    const r =
      args[1] === 'abc'
        ? await orc(['sandbox', 'start', ...args], { configDir })
        : await runOrc(['sandbox', 'start', ...args], { configDir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(flag);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('sk_live_abcdef123456');
    expect(existsSync(join(configDir, 'sandbox.json'))).toBe(false);
  });

  it('says so when the port is in use (exit 1)', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = String((blocker.address() as { port: number }).port);
      const r = await orc(['sandbox', 'start', '--port', port, '--memory']);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`port ${port}`);
      expect(r.stderr).toContain('in use');
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      blocker.close();
    }
  });

  it('says so when the data folder cannot be written (exit 1)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'orc-')), 'a-file');
    writeFileSync(file, 'not a folder');
    const r = await orc(['sandbox', 'start', '--port', '0', '--data-dir', join(file, 'data')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('cannot write the sandbox data folder');
    expect(r.stderr).toContain('--memory');
  });

  it('warns when it listens beyond loopback', async () => {
    const { proc } = await startSandboxProcess(['--host', '0.0.0.0', '--port', '0', '--memory']);
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/warning: .*not loopback/);
  });

  it('loses nothing it acknowledged when killed outright, and carries on after a restart', async () => {
    const configDir = freshConfigDir();
    const dataDir = mkdtempSync(join(tmpdir(), 'orc-data-'));
    const first = await startSandboxProcess(['--port', '0', '--data-dir', dataDir, '--stage-ms', '100'], { configDir });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await post(first.url, '/v1/runs', {
        mode: 'idea',
        idea: { pitch: `Run ${i}`, audience: 'a', monetization: 'free' },
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    first.proc.kill('SIGKILL');
    await first.proc;
    const second = await startSandboxProcess(['--port', '0', '--data-dir', dataDir, '--stage-ms', '100'], {
      configDir,
    });
    try {
      const list = (await (await get(second.url, '/v1/runs?limit=100')).json()) as { data: Array<{ id: string }> };
      expect(list.data.map((r) => r.id)).toEqual([...ids].reverse());
      // the runs move on from where they were
      let run: { gate_pending: string | null } = { gate_pending: null };
      const atGate = async () => {
        run = (await (await get(second.url, `/v1/runs/${ids[0]}`)).json()) as typeof run;
        return run.gate_pending === 'idea';
      };
      await until(atGate, 'the first run to reach the idea gate', { pollMs: 50, seen: () => JSON.stringify(run) });
      expect(run.gate_pending).toBe('idea');
    } finally {
      second.proc.kill('SIGTERM');
      await second.proc;
    }
  });
});
