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
 * a test key never anywhere else; null when it may. `names`: how the hint names the CLI's flags, or the
 * library's options. */
export function destinationProblem(
  mode: KeyMode,
  baseUrl: string,
  names: { live: string; baseUrl: string } = { live: '--live', baseUrl: '--base-url' },
): { message: string; hint: string } | null {
  const host = new URL(baseUrl).hostname;
  const sandbox = isLoopbackHost(host);
  if (mode === 'live' && sandbox)
    return {
      message: `refusing to send a live key to the sandbox at ${baseUrl}`,
      hint: `Live keys go to the live service only; drop ${names.live} to use the test key.`,
    };
  if (mode === 'test' && !sandbox)
    return {
      message: `refusing to send a test key to ${host}: test keys are for the sandbox (a loopback address)`,
      hint: `Use ${names.live} with a live key for the live service, or point ${names.baseUrl} at a sandbox.`,
    };
  return null;
}

/** What is wrong with a service address, or null: https, or http to this machine only, no credentials in it. */
export function baseUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `not a URL: ${JSON.stringify(raw)}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `must be https:// (or http:// to this machine), not ${url.protocol}`;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return `plain http is only for this machine; ${url.host} needs https://`;
  if (url.username || url.password) return 'must not carry a user name or password';
  return null;
}

export function normalizeBaseUrl(raw: string): string {
  return new URL(raw).href.replace(/\/+$/, '');
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

/** webhookUrlProblem's rule as far as a pattern says it (the OpenAPI document's): https:// and a host without
 * credentials, or http:// to a loopback host; in lower case, as URLs are written. */
export const WEBHOOK_URL_PATTERN =
  '^(https://([^/?#@\\s:\\[\\]]+|\\[[0-9A-Fa-f:.]+\\])|http://(localhost|127(\\.[0-9]{1,3}){3}|\\[::1\\]))(:[0-9]*)?([/?#]\\S*)?$';

/**
 * What is wrong with a webhook's receiving URL for a client to send (CONTRACT.md: https, or http to this
 * machine; no credentials in it, the deliveries are signed instead), in words without the field's name; null
 * when it will do. The sandbox refuses the same URLs (sandbox/webhooks.ts, in the service's own words).
 */
export function webhookUrlProblem(text: string): string | null {
  if (!URL.canParse(text))
    return `${JSON.stringify(text)} is not a URL; give the full address, such as https://example.com/hooks/orc`;
  const url = new URL(text);
  if (url.username || url.password)
    return 'a URL with a user name or password in it is not accepted; the deliveries are signed instead';
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return null;
  if (url.protocol === 'http:')
    return `plain http:// is only for this machine (127.0.0.1, ::1, localhost); use https:// for ${url.host}`;
  return `${JSON.stringify(url.protocol)} is not a web address; use https:// (or http:// to this machine)`;
}
