// Which service, which key: flag > environment > profile > the built-in `sandbox` profile, and the
// rules that keep keys safe (a live key never goes to a sandbox, a test key never to the live service).
import { defaultSandboxUrl } from './sandbox-defaults.js';
import {
  SANDBOX_DEFAULT_KEY,
  baseUrlProblem,
  destinationProblem,
  normalizeBaseUrl,
  isLoopbackHost,
  keyMode,
  redactKey,
  type KeyMode,
} from '../contract/keys.js';
import { ConfigError, UsageError } from '../exit/errors.js';
import { BUILT_IN_PROFILE, readConfig, type StoredProfile } from './profiles.js';
import { keychainGet, liveKeyAccount } from './keychain.js';
import { isAlive } from '../lib/pid.js';
import { autoStartedSandboxKey, readState } from './sandbox-state.js';

export interface TargetFlags {
  profile?: string | undefined;
  live?: boolean | undefined;
  baseUrl?: string | undefined;
  /** How the messages name these three: the CLI's flags, or the library's options. */
  names?: TargetNames;
}

export interface TargetNames {
  profile: string;
  live: string;
  baseUrl: string;
}

const FLAG_NAMES: TargetNames = { profile: '--profile', live: '--live', baseUrl: '--base-url' };

export type Source = 'flag' | 'env' | 'profile' | 'built-in';

export interface Target {
  profile: string;
  profileFrom: Source;
  baseUrl: string;
  baseUrlFrom: Source;
  mode: KeyMode;
  key: string;
  keyFrom: 'env' | 'profile' | 'built-in';
  /** True when orc may start the local sandbox itself: nothing configured points elsewhere. */
  autoStartSandbox: boolean;
  /** CA certificates to trust besides the system's: the profile's --ca-file, or the CA of the sandbox this
   * config folder started with --tls (for the built-in profile). */
  caFile?: string;
}

/** With no sandbox running, the key of the one orc would start at the built-in address (its data folder's
 * own, sandbox-state.ts); any other address, the key every sandbox once shared (one started with it). */
function builtInKey(configDir: string, env: NodeJS.ProcessEnv, flags: TargetFlags): string {
  if (flags.baseUrl || env.ORC_BASE_URL) return SANDBOX_DEFAULT_KEY;
  try {
    return autoStartedSandboxKey(configDir, env);
  } catch {
    return SANDBOX_DEFAULT_KEY; // a folder it cannot write: no sandbox starts there either, and that is said then
  }
}

export async function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv, configDir: string): Promise<Target> {
  const config = readConfig(configDir);
  const [profile, profileFrom]: [string, Source] = flags.profile
    ? [flags.profile, 'flag']
    : env.ORC_PROFILE
      ? [env.ORC_PROFILE, 'env']
      : config.active_profile
        ? [config.active_profile, 'profile']
        : [BUILT_IN_PROFILE, 'built-in'];
  const state = readState(configDir);
  const running = state && isAlive(state.pid) ? state : null;
  const builtIn = profile === BUILT_IN_PROFILE && !config.profiles[BUILT_IN_PROFILE];
  const stored = builtIn
    ? builtInProfile(running, configDir, env, flags)
    : namedProfile(config.profiles[profile], profile, profileFrom, flags.names ?? FLAG_NAMES);

  const [rawUrl, baseUrlFrom]: [string, Source] = flags.baseUrl
    ? [flags.baseUrl, 'flag']
    : env.ORC_BASE_URL
      ? [env.ORC_BASE_URL, 'env']
      : [stored.base_url, builtIn ? 'built-in' : 'profile'];
  const names = flags.names ?? FLAG_NAMES;
  const baseUrl = checkBaseUrl(rawUrl, baseUrlFrom, profile, names);

  const mode: KeyMode = flags.live ? 'live' : 'test';
  const { key, keyFrom } = await chooseKey(stored, profile, builtIn, mode, env, names);
  // The CA of a sandbox this folder started with --tls is trusted for that sandbox's address only, however
  // orc was pointed at it (the built-in profile, --base-url, ORC_BASE_URL); a profile's own CA file first.
  const sandboxCa = running?.ca_file && sameSandbox(baseUrl, running.url) ? running.ca_file : undefined;
  const caFile = stored.ca_file ?? sandboxCa;
  checkDestination(mode, baseUrl, names);

  return {
    profile,
    profileFrom,
    baseUrl,
    baseUrlFrom,
    mode,
    key,
    keyFrom,
    autoStartSandbox: builtIn && baseUrlFrom === 'built-in',
    ...(caFile ? { caFile } : {}),
  };
}

type Running = ReturnType<typeof readState>;

/** The built-in profile points at the sandbox this config folder started, else the default address; but
 * ORC_SANDBOX_PORT, when set, names the port, and a sandbox recorded on another port is not that one. */
function builtInProfile(
  running: Running,
  configDir: string,
  env: NodeJS.ProcessEnv,
  flags: TargetFlags,
): StoredProfile {
  const wanted = defaultSandboxUrl(env);
  const named = !env.ORC_SANDBOX_PORT || sameSandbox(running?.url.replace(/^https:/, 'http:') ?? '', wanted);
  const ours = running && named ? running : null;
  // The key goes to the sandbox it belongs to, never to another address: --base-url or ORC_BASE_URL at
  // another port gets the public default key, not this folder's (a server listening there would keep it).
  const pointed = flags.baseUrl ?? env.ORC_BASE_URL;
  const toOurs =
    ours && (!pointed || sameSandbox(pointed.replace(/^https:/, 'http:'), ours.url.replace(/^https:/, 'http:')));
  return {
    base_url: ours?.url ?? wanted,
    test_key: (toOurs ? ours.api_key : undefined) ?? builtInKey(configDir, env, flags),
  };
}

function namedProfile(
  found: StoredProfile | undefined,
  profile: string,
  profileFrom: Source,
  names: TargetNames,
): StoredProfile {
  if (found) return found;
  const where = profileFrom === 'flag' ? names.profile : profileFrom === 'env' ? 'ORC_PROFILE' : 'the active profile';
  throw new ConfigError(
    `no profile named ${JSON.stringify(profile)} (from ${where})`,
    'See `orc profile list`, or add it with `orc profile add`.',
  );
}

/** The key for the mode: ORC_API_KEY, else the profile's (a live one perhaps from the keychain); one there is,
 * of the mode asked for. */
async function chooseKey(
  stored: StoredProfile,
  profile: string,
  builtIn: boolean,
  mode: KeyMode,
  env: NodeJS.ProcessEnv,
  names: TargetNames,
): Promise<{ key: string; keyFrom: Target['keyFrom'] }> {
  let key: string | undefined;
  let keyFrom: Target['keyFrom'];
  if (env.ORC_API_KEY) {
    key = env.ORC_API_KEY.trim();
    keyFrom = 'env';
  } else {
    keyFrom = builtIn ? 'built-in' : 'profile';
    if (mode === 'test') key = stored.test_key;
    else
      key =
        stored.live_key_in === 'keychain'
          ? ((await keychainGet(liveKeyAccount(profile))) ?? undefined)
          : stored.live_key;
  }
  if (!key && builtIn && mode === 'live') {
    throw new ConfigError(
      'the built-in sandbox profile has no live key: the sandbox takes test keys only',
      'For the live service, add a profile with its address and keys (`printf "%s\\n" "$LIVE_KEY" | orc profile add prod --base-url https://… --with-key`), then use `--live --profile prod`; or drop --live to stay on the sandbox.',
    );
  }
  if (!key) {
    throw new ConfigError(
      `profile ${JSON.stringify(profile)} has no ${mode} key${mode === 'live' && stored.live_key_in === 'keychain' ? ' (the keychain did not give it back)' : ''}`,
      `Add one with \`orc profile add ${profile} --with-key\` (the key on stdin), or set ORC_API_KEY.`,
    );
  }
  checkKeyMode(key, keyFrom, mode, names.live);
  return { key, keyFrom };
}

function checkKeyMode(key: string, keyFrom: Target['keyFrom'], mode: KeyMode, live: string): void {
  const actual = keyMode(key);
  if (!actual)
    throw new ConfigError(
      `the ${keyFrom === 'env' ? 'key in ORC_API_KEY' : 'stored key'} (${redactKey(key)}) is neither sk_test_… nor sk_live_…`,
    );
  if (actual !== mode)
    throw new ConfigError(
      actual === 'live'
        ? `${keyFrom === 'env' ? 'ORC_API_KEY holds' : 'the key is'} a live key (${redactKey(key)}), but ${live} was not given`
        : `${live} needs a live key, but ${keyFrom === 'env' ? 'ORC_API_KEY holds' : 'the key is'} a test key (${redactKey(key)})`,
      actual === 'live' ? `Add ${live} to act on the live service on purpose.` : undefined,
    );
}

/** A live key goes to the live service only, a test key to a sandbox (a loopback address) only. */
function checkDestination(mode: KeyMode, baseUrl: string, names: TargetNames): void {
  const problem = destinationProblem(mode, baseUrl, names);
  if (problem) throw new ConfigError(problem.message, problem.hint);
}

/** Two addresses of one sandbox on this machine: both loopback, same scheme and port (its certificate names
 * localhost, 127.0.0.1 and ::1 alike). */
function sameSandbox(a: string, b: string): boolean {
  if (!URL.canParse(a) || !URL.canParse(b)) return false;
  const [x, y] = [new URL(a), new URL(b)];
  return isLoopbackHost(x.hostname) && isLoopbackHost(y.hostname) && x.protocol === y.protocol && x.port === y.port;
}

function checkBaseUrl(raw: string, from: Source, profile: string, names: TargetNames): string {
  const where =
    from === 'flag'
      ? names.baseUrl
      : from === 'env'
        ? 'ORC_BASE_URL'
        : `the base URL of profile ${JSON.stringify(profile)}`;
  const problem = baseUrlProblem(raw);
  // A flag is the command line's (exit 2); the library's option, like a setting, is configuration.
  const flag = from === 'flag' && names === FLAG_NAMES;
  if (problem) throw flag ? new UsageError(`${where}: ${problem}`) : new ConfigError(`${where}: ${problem}`);
  return normalizeBaseUrl(raw);
}

export { baseUrlProblem, normalizeBaseUrl };
