// A real OS keychain for tests on Linux: a private D-Bus session bus and an unlocked gnome-keyring on it
// (Secret Service), in a folder of its own, torn down afterwards. Debian's dbus and gnome-keyring.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './until.js';

export interface Keyring {
  /** What a process needs to reach it: the bus, and a HOME where the keyring files live. */
  env: Record<string, string>;
  close(): void;
}

export async function startKeyring(): Promise<Keyring> {
  const home = mkdtempSync(join(tmpdir(), 'orc-keyring-'));
  chmodSync(home, 0o700);
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    bus.stdout!.on('data', (c: Buffer) => {
      out += c;
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited ${code}`)));
  });
  const env = {
    DBUS_SESSION_BUS_ADDRESS: address,
    HOME: home,
    XDG_RUNTIME_DIR: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
  };
  // The password on stdin unlocks (and first creates) the login keyring; no prompt is ever shown.
  const keyring: ChildProcess = spawn('gnome-keyring-daemon', ['--components=secrets', '--foreground', '--unlock'], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  keyring.stdin!.end('orc-test-password');
  let said = '';
  const onBus = () => {
    const r = spawnSync(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/',
        'org.freedesktop.DBus.NameHasOwner',
        'string:org.freedesktop.secrets',
      ],
      { env: { ...process.env, ...env }, encoding: 'utf8' },
    );
    said = r.stderr;
    return r.stdout?.includes('boolean true');
  };
  await until(onBus, 'the keyring on the bus', { pollMs: 50, seen: () => said });
  return {
    env,
    close: () => {
      keyring.kill();
      bus.kill();
    },
  };
}
