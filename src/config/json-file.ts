// The one way orc writes a file of its own in the config folder (config.json, sandbox.json): whole or
// not at all, mode 0600 in a 0700 folder. conf does the atomic write (temp file, fsync, rename); it is
// loaded only when something is written, never to read.
import { mkdirSync } from 'node:fs';
import { constants } from 'node:os';

let loading: Promise<typeof import('conf').default> | undefined;

/**
 * conf's writer (atomically, through when-exit) hooks every signal when it loads and re-raises it after
 * its clean-up, so a process that handles SIGTERM itself (the sandbox, finishing in-flight work) would be
 * killed halfway. Its signal hooks are taken off again; its 'exit' hook, which removes temp files, stays.
 */
function loadConf(): Promise<typeof import('conf').default> {
  loading ??= (async () => {
    const signals = Object.keys(constants.signals) as NodeJS.Signals[];
    const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
    const { default: Conf } = await import('conf');
    for (const s of signals) for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.removeListener(s, l as () => void);
    return Conf;
  })();
  return loading;
}

export async function writeJsonFile(dir: string, name: string, value: object): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const Conf = await loadConf();
  // A record that no longer parses is replaced, not read: what is written next is the whole of it.
  const file = new Conf<Record<string, unknown>>({ cwd: dir, configName: name, projectName: 'orc', configFileMode: 0o600, clearInvalidConfig: true });
  file.store = value as Record<string, unknown>;
}
