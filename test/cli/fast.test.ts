// The direct reader of plain command lines (src/cli/fast.ts) must read every line it takes exactly as
// commander does (the same command, arguments and flag values), and take none that commander refuses:
// checked on lines made from every command's spec, plain and broken, the command itself not run.
import { Writable } from 'node:stream';
import { beforeAll, expect, it } from 'vitest';
import type { CommandDef, FlagDef } from '../../src/commands/define.js';

import * as spec from '../../src/commands/define.js';
import { GLOBAL_FLAGS } from '../../src/commands/globals.js';
import { runProgram as viaCommander } from '../../src/cli/program.js';
import { runDirect } from '../../src/cli/fast.js';
import { allCommands } from '../../src/commands/index.js';

type Outcome = { command: string; args: unknown; flags: Record<string, unknown> } | { command: string; error: string };
let calls: Outcome[] = [];

/** What the command would receive, checked as execute checks it, instead of running it. */
async function record(
  c: CommandDef,
  args: Array<string | string[] | undefined>,
  raw: Record<string, unknown>,
): Promise<number> {
  try {
    (c.args ?? []).forEach((a, i) => spec.checkArg(a, args[i]));
    const flags: Record<string, unknown> = {};
    for (const [k, s] of [...Object.entries(GLOBAL_FLAGS), ...Object.entries(c.flags ?? {})])
      flags[k] = spec.checkFlag(k, s as FlagDef, raw[k]);
    calls.push({ command: c.name, args, flags });
  } catch (err) {
    calls.push({ command: c.name, error: (err as Error).message });
  }
  return 0;
}
const { kebab } = spec;

const quiet = () => new Writable({ write: (_c, _e, cb) => cb() });
const opts = () => ({ stdout: quiet() as never, stderr: quiet() as never, env: {}, runParsed: record });

let seed = 1;
const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;

function valueFor(s: FlagDef): string {
  switch (s.type) {
    case 'int':
      return pick([String(s.min), String(s.min + 1), 'abc', '0']);
    case 'choice':
    case 'list':
      return pick([s.choices[0]!, 'nope']);
    case 'seconds':
      return pick(['90', '2m', 'soon']);
    case 'id':
      return pick(['run_8fJ2kQ1x', 'x y']);
    default:
      return pick(['x', 'a=1', '']);
  }
}

/** One way to type a flag: its words. */
function typed(key: string, s: FlagDef): string[] {
  if (s.type === 'bool')
    return s.negatable ? [`--no-${kebab(key)}`] : s.short && rand(2) ? [`-${s.short}`] : [`--${kebab(key)}`];
  const v = valueFor(s);
  const form = rand(3);
  if (form === 0) return [`--${kebab(key)}=${v}`];
  if (form === 1 && s.short) return [`-${s.short}`, v];
  return [`--${kebab(key)}`, v];
}

const GLOBALS: string[][] = [
  ['--json'],
  ['--no-input'],
  ['--profile', 'ci'],
  ['--timeout', '30'],
  ['--debug'],
  ['--timeout=5'],
  ['--live'],
];

/** Lines for a command at `path`: plain ones, and a few that commander refuses or that only look plain. */
function linesFor(path: string[], c: CommandDef, n: number): string[][] {
  const out: string[][] = [];
  const flags = Object.entries(c.flags ?? {});
  for (let k = 0; k < n; k++) {
    const positionals = (c.args ?? []).flatMap((a) =>
      a.variadic
        ? Array.from({ length: rand(3) }, () => 'run_8fJ2kQ1x')
        : !a.required && rand(3) === 0
          ? []
          : [a.kind === 'id' ? pick(['run_8fJ2kQ1x', 'run_8fJ2kQ1x', 'bad id']) : 'word'],
    );
    const words: string[][] = positionals.map((p) => [p]);
    for (let f = rand(4); f > 0 && flags.length; f--) {
      const [key, s] = pick(flags);
      words.splice(rand(words.length + 1), 0, typed(key, s));
    }
    const before = rand(3) === 0 ? pick(GLOBALS) : [];
    const after = rand(3) === 0 ? pick(GLOBALS) : [];
    let line = [...before, ...path, ...words.flat(), ...after];
    // Now and then, something commander refuses (or reads its own way).
    switch (rand(20)) {
      case 0:
        line.push('--bogus');
        break;
      case 1:
        line.push('extra', 'words', 'here');
        break;
      case 2:
        if (flags.length && path.length > 1)
          line = [path[0]!, ...typed(...pick(flags)), ...path.slice(1), ...words.flat()];
        break;
      case 3:
        line.push('--timeout');
        break;
      case 4:
        line.push('--', 'x');
        break;
      case 5:
        line.push('--json=yes');
        break;
      case 6:
        line = line.slice(0, Math.max(1, line.length - 1));
        break;
    }
    out.push(line);
  }
  return out;
}

let specs: CommandDef[];
beforeAll(async () => {
  specs = await allCommands();
});

it('reads every line it takes as commander does, and takes none that commander refuses', async () => {
  const leaves: Array<[string[], CommandDef]> = [];
  const walk = (path: string[], c: CommandDef) =>
    c.subcommands ? c.subcommands.forEach((s) => walk([...path, s.name], s)) : leaves.push([path, c]);
  for (const noun of specs) walk([noun.name], noun);
  let taken = 0;
  let plain = 0;
  let total = 0;
  for (const [path, c] of leaves) {
    for (const line of linesFor(path, c, 24)) {
      total++;
      calls = [];
      await viaCommander(line, opts());
      const commander = calls[0] ?? null;
      calls = [];
      const direct = await runDirect(line, opts());
      if (commander) plain++;
      if (direct === null) continue;
      taken++;
      expect(calls[0], line.join(' ')).toEqual(commander ?? 'commander refused this line');
    }
  }
  // The reader takes most plain lines (else it saves nothing), and this test saw enough of both kinds.
  expect(total).toBeGreaterThan(1000);
  expect(taken / plain).toBeGreaterThan(0.8);
}, 120_000);
