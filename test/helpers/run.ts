// orc in process: `run(argv, { streams, env, clock })` with in-memory streams, a fresh config folder and
// no inherited ORC_* settings. Most command tests use this; test/e2e runs the built binary.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Clock } from '../../src/lib/clock.js';
import { SANDBOX_DEFAULT_KEY } from '../../src/contract/keys.js';
import { run } from '../../src/main.js';

export interface InProcessOptions {
  configDir?: string;
  env?: Record<string, string | undefined>;
  /** What stdin holds (a closed pipe when absent, as in CI), or a stream the test writes answers to. */
  input?: string | Readable;
  /** Which streams are terminals (default: none). */
  tty?: { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  columns?: number;
  clock?: Clock;
}

export interface InProcessRun extends Promise<{ exitCode: number; stdout: string; stderr: string }> {
  /** What was written so far. */
  readonly stdout: () => string;
  readonly stderr: () => string;
}

export function freshConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'orc-config-'));
}

export const ORC_BIN = resolve(import.meta.dirname, '../../bin/orc.js');

export function runOrc(argv: string[], o: InProcessOptions = {}): InProcessRun {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[], isTTY: boolean) => {
    const s = new PassThrough();
    s.on('data', (c: Buffer) => into.push(c.toString('utf8')));
    return Object.assign(s, { isTTY, columns: o.columns ?? 100 });
  };
  const source =
    o.input instanceof Readable ? o.input : Readable.from(o.input === undefined ? [] : [Buffer.from(o.input)]);
  const stdin = Object.assign(source, {
    isTTY: Boolean(o.tty?.stdin),
  });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ORC_CONFIG_DIR: o.configDir ?? freshConfigDir(),
    ORC_NO_KEYCHAIN: '1',
    // the sandboxes a test starts take the tests' key (test/helpers/cli.ts)
    ORC_SANDBOX_API_KEY: SANDBOX_DEFAULT_KEY,
    ...o.env,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const stdout = sink(out, Boolean(o.tty?.stdout));
  const stderr = sink(err, Boolean(o.tty?.stderr));
  const done = run(argv, {
    stdin,
    stdout,
    stderr,
    env,
    ...(o.clock ? { clock: o.clock } : {}),
    launcher: ORC_BIN,
  }).then(async (exitCode) => {
    await new Promise((r) => setImmediate(r));
    // As execa gives them: one final newline stripped.
    return { exitCode, stdout: out.join('').replace(/\n$/, ''), stderr: err.join('').replace(/\n$/, '') };
  });
  return Object.assign(done, { stdout: () => out.join(''), stderr: () => err.join('') });
}
