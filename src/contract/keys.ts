// Keys and hosts (CONTRACT.md, "Keys, hosts, auth"): what a key looks like, how it is shown, where it may go.

/** The test key every sandbox once took, and the one a sandbox started in process takes when given none
 * (`startSandbox`: tests, the bench). `orc sandbox start` and `exec` give a sandbox a random key of its own. */
export const SANDBOX_DEFAULT_KEY = 'sk_test_orc_sandbox_local';

export type KeyMode = 'test' | 'live';

export function keyMode(key: string): KeyMode | null {
  if (/^sk_test_\S+$/.test(key)) return 'test';
  if (/^sk_live_\S+$/.test(key)) return 'live';
  return null;
}

/** `sk_test_…abcd`: enough to tell keys apart, never enough to use one. */
export function redactKey(key: string): string {
  const mode = keyMode(key);
  const prefix = mode ? `sk_${mode}_` : '';
  return key.length - prefix.length <= 8 ? `${prefix}…` : `${prefix}…${key.slice(-4)}`;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}
