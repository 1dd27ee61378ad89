// The direct reader of plain command lines: `orc run get run_8fJ2 --json`, `orc watch run_8fJ2`. Words it
// fully understands from the command definitions (a noun, its command, that command's flags and the global ones as
// `--flag`, `--flag value`, `--flag=value`, `-f value`, `--no-flag`, positional arguments in their number)
// run the command without commander, whose loading, command tree and parse cost every command milliseconds
// (docs/figures.md). Anything else (help, a word it does not know, a flag out of place, a value that looks
// like a flag, `--`) is left to commander (program.ts), which explains it: this reader never says no, it only
// says "not mine". test/cli/fast.test.ts holds it to commander's reading of thousands of lines.
import { NOUNS } from '../commands/index.js';
import { execute, failed, wantsJson, type RunOptions } from './execute.js';
import { GLOBAL_FLAGS } from '../commands/globals.js';
import { kebab, type CommandDef, type FlagDef } from '../commands/define.js';

/** How one typed flag reads: its key, whether it takes a value, the value it sets when it takes none. */
interface Typed {
  key: string;
  def: FlagDef;
  takesValue: boolean;
  set?: boolean;
}

/** The flags of `specs` as they may be typed; null when two of them read the same (then commander decides). */
function typedFlags(specs: ReadonlyArray<Record<string, FlagDef>>): Map<string, Typed> | null {
  const out = new Map<string, Typed>();
  const add = (word: string, t: Typed) => {
    if (out.has(word)) return false;
    out.set(word, t);
    return true;
  };
  for (const flags of specs) {
    for (const [key, def] of Object.entries(flags)) {
      const long = kebab(key);
      const ok =
        def.type === 'bool'
          ? def.negatable
            ? add(`--no-${long}`, { key, def, takesValue: false, set: false })
            : add(`--${long}`, { key, def, takesValue: false, set: true }) &&
              (!def.short || add(`-${def.short}`, { key, def, takesValue: false, set: true }))
          : add(`--${long}`, { key, def, takesValue: true }) &&
            (!def.short || add(`-${def.short}`, { key, def, takesValue: true }));
      if (!ok) return null;
    }
  }
  return out;
}

const globalsOnly = typedFlags([GLOBAL_FLAGS]);

/**
 * Runs the command of `argv` if the line is plain (its exit code), or answers null for commander to read it.
 */
export async function runDirect(argv: string[], opts: RunOptions): Promise<number | null> {
  if (!globalsOnly || argv.length === 0 || argv.includes('--')) return null;
  const raw: Record<string, unknown> = {};
  const positionals: string[] = [];
  let table = globalsOnly;
  let at: CommandDef | null = null;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.startsWith('-') && word !== '-') {
      const eq = word.startsWith('--') ? word.indexOf('=') : -1;
      const t = table.get(eq > 0 ? word.slice(0, eq) : word);
      if (!t) return null; // not a flag of this command (or not yet: a command's flag before its name)
      if (!t.takesValue) {
        if (eq > 0) return null;
        raw[t.key] = t.set;
        continue;
      }
      let value: string;
      if (eq > 0) value = word.slice(eq + 1);
      else {
        const next = argv[++i];
        if (next === undefined || next.startsWith('-')) return null;
        value = next;
      }
      raw[t.key] = t.def.type === 'multi' ? [...((raw[t.key] as string[] | undefined) ?? []), value] : value;
      continue;
    }
    if (at && !at.subcommands) {
      positionals.push(word);
      continue;
    }
    // A command word: the noun, then its command (and so on, as deep as the definitions go).
    let next: CommandDef | undefined;
    if (!at) {
      const noun = NOUNS.find((n) => n.name === word);
      if (!noun) return null;
      next = (await noun.load()).default;
    } else next = at.subcommands!.find((c) => c.name === word);
    if (!next) return null;
    at = next;
    if (!at.subcommands) {
      const t = typedFlags([GLOBAL_FLAGS, at.flags ?? {}]);
      if (!t) return null;
      table = t;
    }
  }
  if (!at || at.subcommands || !at.load) return null;
  const args = argsInOrder(at.args ?? [], positionals);
  if (!args) return null;
  try {
    return await (opts.runParsed ?? execute)(at, args, raw, opts);
  } catch (err) {
    return failed(err, wantsJson(argv), opts.stderr ?? process.stderr);
  }
}

/** The positional arguments, in their number; null when some are missing or too many (commander says which). */
function argsInOrder(specs: NonNullable<CommandDef['args']>, positionals: string[]) {
  const args: Array<string | string[] | undefined> = [];
  let p = 0;
  for (const a of specs) {
    if (a.variadic) {
      args.push(positionals.slice(p));
      p = positionals.length;
    } else {
      if (p >= positionals.length && a.required) return null;
      args.push(positionals[p++]);
    }
  }
  return p < positionals.length ? null : args;
}
