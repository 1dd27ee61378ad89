// `orc profile add <name>`: a base URL and keys. Keys come from a masked prompt or stdin (--with-key),
// never from arguments, which any user of the machine can read in `ps`.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { STANDALONE } from '../../lib/assets.js';
import { keyMode, redactKey } from '../../contract/keys.js';
import { baseUrlProblem, normalizeBaseUrl } from '../../config/target.js';
import { keychainDelete, keychainSet, liveKeyAccount } from '../../config/keychain.js';
import {
  BUILT_IN_PROFILE,
  configFile,
  readConfig,
  updateConfig,
  validProfileName,
  type StoredProfile,
} from '../../config/profiles.js';
import type { Context } from '../context.js';
import { UsageError } from '../../exit/errors.js';
import type { ArgsOf, FlagsOf } from '../define.js';
import type { add as def } from './command.js';
import { profileViews } from './view.js';

export default async function add(
  ctx: Context,
  [name]: ArgsOf<typeof def>,
  flags: FlagsOf<typeof def>,
): Promise<number> {
  if (!validProfileName(name!))
    throw new UsageError(`profile name ${JSON.stringify(name)}: use letters, digits, '.', '_' or '-' (up to 40)`);
  if (name === BUILT_IN_PROFILE)
    throw new UsageError(`"${BUILT_IN_PROFILE}" is the built-in profile of the local sandbox; choose another name`);
  const existing = readConfig(ctx.configDir).profiles[name!];

  const baseUrl = await baseUrlOf(ctx, flags.baseUrl ?? existing?.base_url);

  const caFile = flags.caFile === undefined ? undefined : flags.caFile.trim() === '' ? null : readCaFile(flags.caFile);

  let keys: Keys = {};
  if (flags.withKey) keys = keysFromStdin(await ctx.io.readStdin());
  else if (ctx.io.canPrompt) keys = await keysAsked(ctx, Boolean(existing));
  else if (!existing || (flags.baseUrl === undefined && caFile === undefined)) {
    throw new UsageError(
      'give the keys on stdin with --with-key (one a line), or run this at a terminal to be asked',
      'Keys are never taken as arguments: they would show in `ps`.',
    );
  }
  if (!existing && !keys.test && !keys.live) throw new UsageError('a new profile needs at least one key');

  // The live key goes to the keychain when there is one; the file holds it otherwise.
  let liveIn: StoredProfile['live_key_in'] = existing?.live_key_in;
  if (keys.live) liveIn = (await keychainSet(liveKeyAccount(name!), keys.live, ctx.env)) ? 'keychain' : 'file';
  let becameActive = false;
  const config = await updateConfig(ctx.configDir, (c) => {
    const p: StoredProfile = { ...c.profiles[name!], base_url: baseUrl };
    if (keys.test) p.test_key = keys.test;
    if (caFile) p.ca_file = caFile;
    else if (caFile === null) delete p.ca_file;
    if (keys.live) {
      if (liveIn === 'file') p.live_key = keys.live;
      else delete p.live_key;
      p.live_key_in = liveIn;
    }
    c.profiles[name!] = p;
    if (!c.active_profile) {
      c.active_profile = name!;
      becameActive = true;
    }
  });
  if (keys.live && liveIn === 'file') await keychainDelete(liveKeyAccount(name!));

  const view = (await profileViews(config, false, ctx.configDir, ctx.env)).find((v) => v.name === name)!;
  if (ctx.io.json) ctx.io.writeJson(view);
  else {
    ctx.io.info(
      `${existing ? 'Updated' : 'Saved'} profile ${name} (${baseUrl})${becameActive ? '; it is now the active profile' : ''}.`,
    );
    if (keys.test) ctx.io.info(`  test key ${redactKey(keys.test)} in ${configFile(ctx.configDir)}`);
    if (keys.live && liveIn === 'keychain') ctx.io.info(`  live key ${redactKey(keys.live)} in the system keychain`);
    if (caFile) ctx.io.info(`  trusting the CA certificates in ${caFile}, besides the system's`);
  }
  // Said once, clearly, also under --json: a live key in a file is a choice the user should know was made.
  if (keys.live && liveIn === 'file') warnLiveKeyInFile(ctx, keys.live);
  return 0;
}

/** --base-url (or the profile's own), else asked at a terminal; checked and normalised. */
async function baseUrlOf(ctx: Context, given: string | undefined): Promise<string> {
  let baseUrl = given;
  if (!baseUrl && ctx.io.canPrompt)
    baseUrl = await (await ctx.prompter()).input('Base URL of the service (https://…)', { required: true });
  if (!baseUrl) throw new UsageError('missing --base-url: the address of the service, https://…');
  const problem = baseUrlProblem(baseUrl);
  if (problem) throw new UsageError(`--base-url: ${problem}`);
  return normalizeBaseUrl(baseUrl);
}

type Keys = { test?: string; live?: string };

/** --with-key: a key a line, at most one of each kind. */
function keysFromStdin(text: string): Keys {
  const keys: Keys = {};
  for (const line of text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)) {
    const mode = keyMode(line);
    if (!mode) throw new UsageError('--with-key: each line on stdin must be a key starting sk_test_ or sk_live_');
    if (keys[mode]) throw new UsageError(`--with-key: two ${mode} keys on stdin; give one of each at most`);
    keys[mode] = line;
  }
  if (!keys.test && !keys.live) throw new UsageError('--with-key: no key on stdin');
  return keys;
}

/** At a terminal: each key asked, masked; Enter keeps (or skips) it. */
async function keysAsked(ctx: Context, existing: boolean): Promise<Keys> {
  const keys: Keys = {};
  const prompter = await ctx.prompter();
  for (const mode of ['test', 'live'] as const) {
    // A key of the other kind pasted here is said, and asked again: the key given before is not lost.
    const validate = (value: string) => {
      const v = value.trim();
      if (!v || keyMode(v) === mode) return true;
      const other = keyMode(v);
      return `${other ? `that is a ${other} key` : 'that is not a key'}: a ${mode} key starts sk_${mode}_ (Enter to ${existing ? 'keep' : 'skip'})`;
    };
    const entered = (
      await prompter.password(
        `${mode === 'test' ? 'Test' : 'Live'} key (sk_${mode}_…; Enter to ${existing ? 'keep' : 'skip'})`,
        { validate },
      )
    ).trim();
    if (entered) keys[mode] = entered;
  }
  return keys;
}

function warnLiveKeyInFile(ctx: Context, key: string): void {
  ctx.io.warn(
    ctx.env.ORC_NO_KEYCHAIN
      ? `the live key ${redactKey(key)} is in ${configFile(ctx.configDir)} (readable by you only), as ORC_NO_KEYCHAIN asks`
      : STANDALONE
        ? `the standalone orc has no access to the OS keychain, so the live key ${redactKey(key)} is in ${configFile(ctx.configDir)}, readable by you only; the npm package (orc-cli) keeps it in the keychain`
        : `no OS keychain answered (on Linux: a Secret Service such as gnome-keyring, unlocked, on the session bus), so the live key ${redactKey(key)} is in ${configFile(ctx.configDir)}, readable by you only; add the profile again once a keychain runs to move it there`,
  );
}

/** The CA file as stored: its absolute path, once it is known to hold a certificate (exit 2 otherwise). */
function readCaFile(path: string): string {
  const abs = resolve(path);
  let pem: string;
  try {
    pem = readFileSync(abs, 'utf8');
  } catch (err) {
    throw Object.assign(
      new UsageError(`--ca-file: cannot read ${abs}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`),
      { field: '--ca-file' },
    );
  }
  try {
    new X509Certificate(pem);
  } catch {
    throw Object.assign(new UsageError(`--ca-file: ${abs} holds no PEM certificate`), { field: '--ca-file' });
  }
  return abs;
}
