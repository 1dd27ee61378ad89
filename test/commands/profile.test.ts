// `orc profile …` and the precedence flag > env > profile > built-in, with the built orc.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/clock.js';
import { freshConfigDir, runOrc as orc } from '../helpers/run.js';
import { KEY, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ stageMs: 30_000 });
});
afterAll(() => sb.close());

const TEST_KEY = 'sk_test_ProfileTestKey1234';
const LIVE_KEY = 'sk_live_ProfileLiveKey5678';
// No keychain in CI; on a developer's machine this keeps the tests from touching the real one.
const noKeychain = { ORC_NO_KEYCHAIN: '1' };

describe('orc profile', () => {
  it('adds a profile from stdin, keeps it 0600, shows keys redacted and where they live', async () => {
    const configDir = freshConfigDir();
    const added = await orc(['profile', 'add', 'prod', '--base-url', 'https://api.example.com', '--with-key'], {
      configDir,
      input: `${TEST_KEY}\n${LIVE_KEY}\n`,
      env: noKeychain,
    });
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stderr).toContain('now the active profile');
    expect(added.stderr).toContain('sk_live_…5678');
    expect(added.stderr).toMatch(
      /warning: the live key sk_live_…5678 is in \S+config\.json \(readable by you only\), as ORC_NO_KEYCHAIN asks/,
    );
    expect(added.stdout + added.stderr).not.toContain('ProfileLiveKey');
    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o077).toBe(0);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({
      active_profile: 'prod',
      profiles: { prod: { base_url: 'https://api.example.com', test_key: TEST_KEY, live_key_in: 'file' } },
    });

    const list = await orc(['profile', 'list', '--json'], { configDir });
    const views = JSON.parse(list.stdout);
    expect(views.map((v: any) => [v.name, v.active])).toEqual([
      ['sandbox', false],
      ['prod', true],
    ]);
    expect(list.stdout).not.toContain('ProfileTestKey');
    const show = await orc(['profile', 'show', '--json'], { configDir });
    expect(JSON.parse(show.stdout)).toMatchObject({
      name: 'prod',
      test_key: 'sk_test_…1234',
      test_key_in: 'config file',
      live_key: 'sk_live_…5678',
      live_key_in: 'config file',
      config_file: file,
    });
    const human = await orc(['profile', 'show', 'prod'], { configDir });
    expect(human.stdout).toContain(`live key  sk_live_…5678  (${file})`);
    const table = await orc(['profile', 'list'], { configDir });
    expect(table.stdout.split('\n')).toContain(
      '* prod\thttps://api.example.com\tsk_test_…1234\tsk_live_…5678 (config file)',
    );
  });

  it('takes keys only from stdin or a prompt, never as arguments', async () => {
    const configDir = freshConfigDir();
    const noStdin = await orc(['profile', 'add', 'ci', '--base-url', 'https://api.example.com'], { configDir });
    expect(noStdin.exitCode).toBe(2);
    expect(noStdin.stderr).toContain('--with-key');
    const asArg = await orc(['profile', 'add', 'ci', TEST_KEY], { configDir });
    expect(asArg.exitCode).toBe(2);
    const garbage = await orc(['profile', 'add', 'ci', '--base-url', 'https://api.example.com', '--with-key'], {
      configDir,
      input: 'hunter2\n',
    });
    expect(garbage.exitCode).toBe(2);
    expect(garbage.stderr).not.toContain('hunter2');
    const plainHttp = await orc(['profile', 'add', 'ci', '--base-url', 'http://api.example.com', '--with-key'], {
      configDir,
      input: TEST_KEY,
    });
    expect(plainHttp.exitCode).toBe(2);
    expect(plainHttp.stderr).toContain('--base-url');
    const credentials = await orc(
      ['profile', 'add', 'ci', '--base-url', 'https://user:pw@api.example.com', '--with-key'],
      { configDir, input: TEST_KEY },
    );
    expect(credentials.exitCode).toBe(2);
    expect(credentials.stderr).toContain('--base-url: must not carry a user name or password');
    const reserved = await orc(['profile', 'add', 'sandbox', '--base-url', 'https://x.example.com', '--with-key'], {
      configDir,
      input: TEST_KEY,
    });
    expect(reserved.exitCode).toBe(2);
    expect((await orc(['profile', 'list', '--json'], { configDir })).stdout).not.toContain('"ci"');
  });

  it('ten `profile add` at once keep all ten profiles: each change is made holding the config file', async () => {
    const configDir = freshConfigDir();
    const names = Array.from({ length: 10 }, (_, i) => `team${i}`);
    const added = await Promise.all(
      names.map((name) =>
        orc(['profile', 'add', name, '--base-url', `https://${name}.example.com`, '--with-key'], {
          configDir,
          input: `${TEST_KEY}\n\n`,
          env: noKeychain,
        }),
      ),
    );
    for (const r of added) expect(r.exitCode, r.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(Object.keys(stored.profiles).sort()).toEqual(names);
    expect(readdirSync(configDir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('uses, removes, and falls back to the built-in sandbox profile', async () => {
    const configDir = freshConfigDir();
    await orc(['profile', 'add', 'a', '--base-url', sb.url, '--with-key'], { configDir, input: KEY });
    await orc(['profile', 'add', 'b', '--base-url', 'https://b.example.com', '--with-key'], {
      configDir,
      input: TEST_KEY,
    });
    expect(JSON.parse((await orc(['profile', 'show', '--json'], { configDir })).stdout).name).toBe('a');
    const used = await orc(['profile', 'use', 'b', '--json'], { configDir });
    expect(JSON.parse(used.stdout)).toEqual({ active_profile: 'b' });
    const added = await orc(['profile', 'add', 'c', '--base-url', 'https://c.example.com', '--with-key', '--json'], {
      configDir,
      input: TEST_KEY,
    });
    expect(JSON.parse(added.stdout)).toMatchObject({
      name: 'c',
      active: false,
      base_url: 'https://c.example.com',
      test_key: 'sk_test_…1234',
      test_key_in: 'config file',
    });
    // No one to ask: --yes is needed, and nothing is removed without it.
    const unasked = await orc(['profile', 'remove', 'c'], { configDir });
    expect(unasked.exitCode).toBe(2);
    expect(unasked.stderr).toContain('removing profile c needs --yes when no one can be asked');
    expect(
      JSON.parse((await orc(['profile', 'list', '--json'], { configDir })).stdout).map((p: { name: string }) => p.name),
    ).toContain('c');
    expect(JSON.parse((await orc(['profile', 'remove', 'c', '--yes', '--json'], { configDir })).stdout)).toEqual({
      name: 'c',
      removed: true,
    });
    expect(JSON.parse((await orc(['profile', 'show', '--json'], { configDir })).stdout).name).toBe('b');
    const missing = await orc(['profile', 'use', 'nope'], { configDir });
    expect(missing.exitCode).toBe(4);
    const removed = await orc(['profile', 'remove', 'b', '--yes'], { configDir });
    expect(removed.stderr).toContain('built-in sandbox profile');
    expect(JSON.parse((await orc(['profile', 'show', '--json'], { configDir })).stdout)).toMatchObject({
      name: 'sandbox',
      built_in: true,
      active: true,
    });
    expect((await orc(['profile', 'remove', 'sandbox'], { configDir })).exitCode).toBe(2);
  });
});

describe('precedence: flag > environment > profile > built-in', () => {
  it('picks the profile, base URL and key in that order', async () => {
    const configDir = freshConfigDir();
    await orc(['profile', 'add', 'good', '--base-url', sb.url, '--with-key'], { configDir, input: KEY });
    await orc(['profile', 'add', 'wrongkey', '--base-url', sb.url, '--with-key'], {
      configDir,
      input: 'sk_test_notTheSandboxKey',
    });
    await orc(['profile', 'add', 'nowhere', '--base-url', 'http://127.0.0.1:9', '--with-key'], {
      configDir,
      input: KEY,
    });
    await orc(['profile', 'use', 'wrongkey'], { configDir });
    const ok = (r: { exitCode?: number }) => r.exitCode === 0;

    expect((await orc(['run', 'list'], { configDir })).exitCode).toBe(4); // active profile: wrong key
    expect(ok(await orc(['run', 'list'], { configDir, env: { ORC_PROFILE: 'good' } }))).toBe(true); // env beats active
    expect(
      (await orc(['run', 'list', '--profile', 'wrongkey'], { configDir, env: { ORC_PROFILE: 'good' } })).exitCode,
    ).toBe(4); // flag beats env
    expect(ok(await orc(['run', 'list'], { configDir, env: { ORC_API_KEY: KEY } }))).toBe(true); // env key beats the profile's
    // base URL: the profile says port 9 (nothing there); ORC_BASE_URL and --base-url override it
    const nowhere = await orc(['run', 'list', '--profile', 'nowhere'], {
      configDir,
      clock: new FakeClock({ autoMs: 10_000 }),
    }); // retries wait on the clock
    expect(nowhere.exitCode).toBe(1);
    expect(nowhere.stderr).toContain('connection refused');
    expect(ok(await orc(['run', 'list', '--profile', 'nowhere'], { configDir, env: { ORC_BASE_URL: sb.url } }))).toBe(
      true,
    );
    expect(
      (
        await orc(['run', 'list', '--profile', 'good', '--base-url', 'http://127.0.0.1:9'], {
          configDir,
          env: { ORC_BASE_URL: sb.url },
          clock: new FakeClock({ autoMs: 10_000 }),
        })
      ).exitCode,
    ).toBe(1);
    const unknown = await orc(['run', 'list', '--profile', 'ghost'], { configDir });
    expect(unknown.exitCode).toBe(4);
    expect(unknown.stderr).toContain('no profile named "ghost" (from --profile)');
  }, 60_000);

  it('--live needs a live key in the profile', async () => {
    const configDir = freshConfigDir();
    await orc(['profile', 'add', 'testonly', '--base-url', 'https://api.example.com', '--with-key'], {
      configDir,
      input: TEST_KEY,
    });
    const r = await orc(['run', 'list', '--live'], { configDir });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('has no live key');
  });
});

describe('the config lock', () => {
  it('is taken over from a process that is gone, and from one that died before writing its pid', async () => {
    const { utimesSync } = await import('node:fs');
    for (const left of ['999999999', '']) {
      const configDir = freshConfigDir();
      writeFileSync(join(configDir, 'config.lock'), left);
      if (!left)
        utimesSync(join(configDir, 'config.lock'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      const r = await orc(['profile', 'add', 'after', '--base-url', 'https://after.example.com', '--with-key'], {
        configDir,
        input: `${TEST_KEY}\n`,
        env: noKeychain,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.after.base_url).toBe(
        'https://after.example.com',
      );
    }
  });
});
