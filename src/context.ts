// What a command may use, built once per invocation: the streams, the environment, the config folder.
// Heavier pieces (the API client, profiles) are added lazily by the issues that need them.
import { configDir } from './config/paths.js';
import { IO, type Streams } from './ui/io.js';
import { VERSION } from './version.js';

export interface GlobalFlags {
  json?: boolean;
  input?: boolean; // commander's --no-input
}

export interface Context {
  io: IO;
  env: NodeJS.ProcessEnv;
  configDir: string;
  version: string;
  /** The orc launcher, for commands that start orc again in the background. */
  launcher: string;
}

export function createContext(globals: GlobalFlags, streams: Streams = process, env: NodeJS.ProcessEnv = process.env): Context {
  return {
    io: new IO(streams, { json: Boolean(globals.json), noInput: globals.input === false, env }),
    env,
    configDir: configDir(env),
    version: VERSION,
    launcher: process.argv[1] ?? 'orc',
  };
}
