// Starting the local sandbox in the background: `orc sandbox start --detach`, and orc itself when the
// built-in profile finds nothing answering. The key goes to the child in its environment, never in argv
// (which `ps` shows to every user of the machine).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { STANDALONE } from '../lib/assets.js';
import { KNOB_NAMES, type KnobName } from '../contract/sandbox-knobs.js';
import { EnvironmentError } from '../exit/errors.js';
import { logPath } from './sandbox-state.js';

export interface LaunchFrom {
  configDir: string;
  env: NodeJS.ProcessEnv;
  /** The orc launcher (bin/orc.js) to run again. */
  launcher: string;
}

/** Flags of `orc sandbox start` to pass on, as typed: a value for each knob given; `apiKey` travels in the
 * environment, never in argv. */
export type LaunchFlags = Partial<Record<KnobName, string>> & {
  apiKey?: string;
  dataDir?: string;
  memory?: boolean;
  clock?: string;
  import?: string;
  tls?: boolean;
  standInLive?: boolean;
};

const flagOf = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Starts `orc sandbox start` in the background and answers its URL once it listens (or says why it could not). */
export async function spawnDetached(from: LaunchFrom, flags: LaunchFlags): Promise<string> {
  mkdirSync(from.configDir, { recursive: true, mode: 0o700 });
  const log = logPath(from.configDir);
  const fd = openSync(log, 'a', 0o600);
  // The standalone executable is its own launcher: Node and orc in one file.
  const args = STANDALONE ? ['sandbox', 'start'] : [from.launcher, 'sandbox', 'start'];
  for (const key of KNOB_NAMES) if (flags[key] !== undefined) args.push(flagOf(key), flags[key]);
  if (flags.dataDir) args.push('--data-dir', flags.dataDir);
  if (flags.clock) args.push('--clock', flags.clock);
  if (flags.import) args.push('--import', flags.import);
  if (flags.memory) args.push('--memory');
  if (flags.tls) args.push('--tls');
  if (flags.standInLive) args.push('--stand-in-live');
  const start = readFileSync(log).length;
  const child = spawn(process.execPath, [...process.execArgv, ...args], {
    detached: true,
    stdio: ['ignore', fd, fd, 'ipc'],
    env: {
      ...from.env,
      ORC_CONFIG_DIR: from.configDir,
      ...(flags.apiKey ? { ORC_SANDBOX_API_KEY: flags.apiKey } : {}),
    },
  });
  closeSync(fd);
  try {
    return await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(
        () => reject(new EnvironmentError(`the sandbox did not start within 15 s; see ${log}`)),
        15_000,
      );
      child.once('message', (m: { type?: string; url?: string }) => {
        if (m?.type === 'listening' && m.url) {
          clearTimeout(timer);
          resolveUrl(m.url);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        // (By bytes: `start` is the log's length in bytes, and earlier lines hold characters of several.)
        const said = readFileSync(log).subarray(start).toString('utf8').trim().split('\n').filter(Boolean);
        // orc's own last word; else, for a crash Node itself reported, the line naming the error (not the last
        // line of its stack).
        const why =
          said.filter((l) => l.startsWith('orc:')).pop() ??
          said.find((l) => /^\w*Error\b|Error:/.test(l)) ??
          said.pop() ??
          `exit code ${code}`;
        // Its folder or port taken: most often by a sandbox another orc is starting at this very moment.
        const taken = /is in use by another sandbox|is already in use/.test(why);
        reject(
          Object.assign(
            new EnvironmentError(`the sandbox could not start: ${why.replace(/^orc: /, '')}`, `Log: ${log}`),
            { taken },
          ),
        );
      });
    });
  } finally {
    if (child.connected) child.disconnect();
    child.unref();
  }
}
