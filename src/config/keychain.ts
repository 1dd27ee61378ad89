// Live keys in the OS keychain where there is one (@napi-rs/keyring: macOS Keychain, Windows Credential
// Manager, Secret Service on Linux desktops). Headless machines and CI have none: callers fall back to the file.
const SERVICE = 'orc';

async function entry(account: string) {
  // require, not import(): a native module is CommonJS either way, and the library's CommonJS build may run in
  // a vm without dynamic import (jest's), where import() throws and the key would seem not to be there.
  const { createRequire } = process.getBuiltinModule('node:module') as typeof import('node:module');
  const { Entry } = createRequire(import.meta.url)('@napi-rs/keyring') as typeof import('@napi-rs/keyring');
  // On Linux only the Secret Service keeps a key across reboots: the kernel's keyutils store (which the
  // library may fall back to when no Secret Service answers) forgets it, and a live key moved out of the
  // config file into it would be lost. No Secret Service: no keychain, and the key goes to the 0600 file.
  return new Entry(SERVICE, account, { linux: { store: 'secret-service' } });
}

export const liveKeyAccount = (profile: string) => `${profile}:live_key`;

/** True if the keychain now holds the secret; false if there is no usable keychain. */
export async function keychainSet(account: string, secret: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  if (env.ORC_NO_KEYCHAIN) return false;
  try {
    (await entry(account)).setPassword(secret);
    return (await entry(account)).getPassword() === secret;
  } catch {
    return false;
  }
}

export async function keychainGet(account: string): Promise<string | null> {
  try {
    return (await entry(account)).getPassword() ?? null;
  } catch {
    return null;
  }
}

export async function keychainDelete(account: string): Promise<void> {
  try {
    (await entry(account)).deletePassword();
  } catch {
    // nothing stored, or no keychain: nothing to delete
  }
}
