// The live key in a real OS keychain: a session bus and an unlocked gnome-keyring (Secret Service), as a
// Linux desktop has. `profile add` stores it there and not in config.json, commands read it back, and
// `profile remove` deletes it. Without a keychain, orc says once, clearly, that the key went to the file.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigDir, orc } from '../helpers/cli.js';
import { startKeyring, type Keyring } from '../helpers/keyring.js';
import { needTool } from '../helpers/tools.js';

const withKeyring =
  needTool('gnome-keyring-daemon', 'the OS keychain tests', 'gnome-keyring') &&
  needTool('dbus-daemon', 'the OS keychain tests', 'dbus');
const LIVE = 'sk_live_keychain_test_0000001234';
const TEST = 'sk_test_keychain_test_0000005678';

/** What the keychain holds for an account, read by a process of its own through the same library. */
function keychainHolds(env: Record<string, string>, account: string): Promise<string | null> {
  const script = `import('@napi-rs/keyring').then(({ Entry }) => { try { process.stdout.write(JSON.stringify(new Entry('orc', process.argv[1]).getPassword() ?? null)); } catch (e) { process.stdout.write(JSON.stringify('error: ' + e.message)); } })`;
  return new Promise((resolve, reject) => {
    import('node:child_process').then(({ execFile }) =>
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script, account],
        { env: { ...process.env, ...env }, cwd: join(import.meta.dirname, '../..') },
        (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout) as string | null)),
      ),
    );
  });
}

describe.runIf(withKeyring)('the live key in the OS keychain', () => {
  let keyring: Keyring;
  beforeAll(async () => {
    keyring = await startKeyring();
  });
  afterAll(() => keyring?.close());

  it('profile add stores it in the keychain and not in config.json; show reads it back; remove deletes it', async () => {
    const configDir = freshConfigDir();
    const env = { ...keyring.env, ORC_NO_KEYCHAIN: undefined };
    const added = await orc(
      ['profile', 'add', 'prod', '--base-url', 'https://orc-keychain-test.invalid', '--with-key'],
      { configDir, env, input: `${LIVE}\n${TEST}\n` },
    );
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stderr).toContain('live key sk_live_…1234 in the system keychain');
    expect(added.stderr).not.toContain('warning');
    const config = readFileSync(join(configDir, 'config.json'), 'utf8');
    expect(config).not.toContain(LIVE);
    expect(JSON.parse(config).profiles.prod).toMatchObject({ live_key_in: 'keychain', test_key: TEST });
    expect(await keychainHolds(keyring.env, 'prod:live_key')).toBe(LIVE);

    // Read back: show finds it in the keychain (the last digits prove it read the key itself).
    const shown = await orc(['profile', 'show', 'prod', '--json'], { configDir, env });
    expect(JSON.parse(shown.stdout)).toMatchObject({ live_key: 'sk_live_…1234', live_key_in: 'keychain' });
    // And a live command uses it: the request it makes carries the key from the keychain (redacted in
    // --debug; the host does not exist here, so nothing leaves this machine).
    const live = await orc(['--profile', 'prod', '--live', '--debug', '--timeout', '5', 'run', 'list'], {
      configDir,
      env,
    });
    expect(live.stderr).toContain('> authorization: Bearer sk_live_…1234');
    const doctor = await orc(['doctor', '--profile', 'prod', '--live', '--json'], { configDir, env });
    expect(JSON.parse(doctor.stdout).checks.find((c: { id: string }) => c.id === 'profile').message).toContain(
      'live key from the OS keychain',
    );

    const removed = await orc(['profile', 'remove', 'prod', '--yes'], { configDir, env });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await keychainHolds(keyring.env, 'prod:live_key')).toBeNull();
  }, 30_000);

  it('without a keychain on the bus, the key goes to the 0600 file and orc says so once', async () => {
    const configDir = freshConfigDir();
    // Nothing a keychain client could find: no bus, and a home and runtime folder of its own (none of the
    // running keyring's sockets or files).
    const bare = mkdtempSync(join(tmpdir(), 'orc-no-keychain-'));
    const env = {
      HOME: bare,
      XDG_RUNTIME_DIR: bare,
      XDG_DATA_HOME: join(bare, 'data'),
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
      ORC_NO_KEYCHAIN: undefined,
    };
    const added = await orc(
      ['profile', 'add', 'prod', '--base-url', 'https://orc-keychain-test.invalid', '--with-key', '--json'],
      { configDir, env, input: `${LIVE}\n` },
    );
    expect(added.exitCode, added.stderr).toBe(0);
    // Under --json, said once as a JSON warning (every line of stderr is JSON).
    const warnings = added.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).warning?.message ?? '');
    expect(warnings.filter((w) => /^no OS keychain answered/.test(w))).toHaveLength(1);
    expect(added.stderr).toContain('readable by you only');
    expect(JSON.parse(added.stdout)).toMatchObject({ live_key_in: 'config file' });
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.prod.live_key).toBe(LIVE);
  }, 30_000);
});
