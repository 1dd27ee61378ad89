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

/** Why a key of this mode may not go to this address: a live key never to the sandbox (a loopback address),
 * a test key never anywhere else; null when it may. */
export function destinationProblem(mode: KeyMode, baseUrl: string): { message: string; hint: string } | null {
  const host = new URL(baseUrl).hostname;
  const sandbox = isLoopbackHost(host);
  if (mode === 'live' && sandbox)
    return {
      message: `refusing to send a live key to the sandbox at ${baseUrl}`,
      hint: 'Live keys go to the live service only; drop --live to use the test key.',
    };
  if (mode === 'test' && !sandbox)
    return {
      message: `refusing to send a test key to ${host}: test keys are for the sandbox (a loopback address)`,
      hint: 'Use --live with a live key for the live service, or point --base-url at a sandbox.',
    };
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
