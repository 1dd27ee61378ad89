// The standalone executable (scripts/standalone.mjs: Node and orc in one file) with no Node at all, an empty
// PATH: its --version, and the README's first command against a sandbox it starts itself, whose console page
// it serves from inside the file.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildStandalone, readmeRun, userEnv } from '../helpers/install.js';

describe('the standalone executable', () => {
  let exe: string;
  beforeAll(async () => {
    exe = await buildStandalone();
  }, 180_000);

  it('answers --version with no Node anywhere: an empty PATH', async () => {
    const r = await execa(exe, ['--version'], { env: userEnv(''), extendEnv: false });
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('starts the sandbox, runs the README first command on it, and serves the console page from inside itself', async () => {
    await readmeRun(exe, userEnv(''), async (orc) => {
      const id = String((await orc(['run', 'list', '--json', '--jq', '.[0].id'])).stdout);
      const out = mkdtempSync(join(tmpdir(), 'orc-pull-'));
      const pulled = await orc(['artifacts', 'pull', id, '--dir', out]);
      expect(pulled.exitCode, String(pulled.stderr)).toBe(0);
      expect(readdirSync(out).length).toBeGreaterThan(0);
      const link = JSON.parse(String((await orc(['sandbox', 'console', '--no-open', '--json'])).stdout)).url as string;
      const login = await fetch(link, { redirect: 'manual' });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(new URL('/console/', link), { headers: { cookie } });
      expect(page.status).toBe(200);
      const script = /src="([^"]+\.js)"/.exec(await page.text())![1]!;
      expect((await fetch(new URL(script, new URL('/console/', link)), { headers: { cookie } })).status).toBe(200);
    });
  }, 240_000);
});
