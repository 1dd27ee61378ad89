// The built orc as a newcomer meets it: nothing configured, nothing running. No fixed port: the built-in
// profile's port comes from ORC_SANDBOX_PORT, set here to one that was free a moment ago. No key is set: the
// sandbox orc starts makes its own, and orc takes it from the sandbox's record.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshConfigDir, orc } from '../helpers/cli.js';
import { freePort } from '../helpers/install.js';

const idea = ['--pitch', 'A habit tracker for runners', '--audience', 'runners', '--monetization', 'freemium'];

describe('with nothing configured', () => {
  it('starts the local sandbox in the background, says so, and uses it', async () => {
    const configDir = freshConfigDir();
    const port = String(await freePort());
    const env = { ORC_SANDBOX_PORT: port, ORC_SANDBOX_API_KEY: undefined }; // the sandbox makes its own key
    try {
      const r = await orc(['run', 'create', ...idea, '--json'], { configDir, env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('starting one in the background');
      expect(r.stderr).toContain(`http://127.0.0.1:${port}`);
      const created = JSON.parse(r.stdout);
      const again = await orc(['run', 'get', created.id, '--json'], { configDir, env });
      expect(again.exitCode).toBe(0);
      expect(again.stderr).toBe(''); // already running: nothing to say
      const status = JSON.parse((await orc(['sandbox', 'status', '--json'], { configDir, env })).stdout);
      expect(status).toMatchObject({ running: true, url: `http://127.0.0.1:${port}` });
    } finally {
      await orc(['sandbox', 'stop'], { configDir, env });
    }
  });

  it('six commands at once on a fresh machine: one starts the sandbox, the others wait for it and use it', async () => {
    const configDir = freshConfigDir();
    const port = String(await freePort());
    const env = { ORC_SANDBOX_PORT: port, ORC_SANDBOX_API_KEY: undefined }; // the sandbox makes its own key
    try {
      const all = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          orc(['run', 'create', ...idea.slice(0, 1), `Habit ${i}`, ...idea.slice(2), '--json'], { configDir, env }),
        ),
      );
      for (const r of all) expect(r.exitCode, r.stderr).toBe(0);
      const ids = new Set(all.map((r) => JSON.parse(r.stdout).id));
      expect(ids.size).toBe(6);
      const listed = JSON.parse((await orc(['run', 'list', '--json'], { configDir, env })).stdout);
      expect(listed.map((r: { id: string }) => r.id).sort()).toEqual([...ids].sort());
    } finally {
      await orc(['sandbox', 'stop'], { configDir, env });
    }
  });

  it('the folders a sandbox makes (the config folder, its data folder) are 0700', async () => {
    const configDir = join(freshConfigDir(), 'made-here');
    const port = String(await freePort());
    const env = { ORC_SANDBOX_PORT: port, ORC_SANDBOX_API_KEY: undefined }; // the sandbox makes its own key
    try {
      const r = await orc(['run', 'list', '--json'], { configDir, env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(statSync(configDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(configDir, 'sandbox')).mode & 0o777).toBe(0o700);
      const doctor = await orc(['doctor'], { configDir, env });
      expect(doctor.stdout + doctor.stderr).toContain('(mode 700)');
      expect(doctor.stdout + doctor.stderr).not.toContain('others can look in it');
    } finally {
      await orc(['sandbox', 'stop'], { configDir, env });
    }
  });

  it('refuses an ORC_SANDBOX_PORT that is no port, with exit 4 naming it', async () => {
    const r = await orc(['run', 'list'], { env: { ORC_SANDBOX_PORT: 'eighty' } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('ORC_SANDBOX_PORT');
  });
});
