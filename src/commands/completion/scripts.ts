// Shell completion scripts for bash, zsh and fish, generated from the command table, so they always know
// the commands and flags orc has. They complete commands, subcommands, flags, the values of flags and
// arguments that take one of a few (--on-gate, --status, a gate name, an artifact kind…) or a file, and
// values that live on the service or in the config (run ids, webhook ids, profile names), which they ask
// of `orc __complete <source>` (src/cli/complete.ts: fast, silent, never starts anything).
import { longName, type ArgDef, type CommandDef, type DynamicValues, type FlagDef } from '../define.js';

interface Flag {
  long: string;
  short?: string;
  takesValue: boolean;
  choices: readonly string[];
  files: boolean;
  dynamic?: DynamicValues | undefined;
  description: string;
}

interface Arg {
  choices: readonly string[];
  dynamic?: DynamicValues | undefined;
  variadic: boolean;
}

interface Level {
  /** Words from orc to here: '' for orc itself, 'run create' for `orc run create`. */
  path: string;
  subcommands: Array<{ name: string; summary: string }>;
  flags: Flag[];
  args: Arg[];
}

const isDynamic = (c: unknown): c is DynamicValues =>
  c === 'runs' || c === 'gated-runs' || c === 'webhooks' || c === 'profiles';
const argOf = (a: ArgDef): Arg => ({
  choices: Array.isArray(a.complete) ? a.complete : [],
  dynamic: isDynamic(a.complete) ? a.complete : undefined,
  variadic: Boolean(a.variadic),
});

function flagOf(key: string, def: FlagDef): Flag {
  const choices = Array.isArray(def.complete)
    ? def.complete
    : def.type === 'choice' || def.type === 'list'
      ? def.choices
      : [];
  return {
    long: longName(key, def),
    ...(def.short ? { short: `-${def.short}` } : {}),
    takesValue: def.type !== 'bool',
    choices,
    files: def.complete === 'files',
    dynamic: isDynamic(def.complete) ? def.complete : undefined,
    description: def.description,
  };
}

const flagsOf = (flags: Record<string, FlagDef> | undefined) =>
  Object.entries(flags ?? {})
    .filter(([, s]) => !s.hidden)
    .map(([k, s]) => flagOf(k, s));

export function completionModel(
  commands: readonly CommandDef[],
  globals: Record<string, FlagDef>,
): { levels: Level[]; flags: Flag[] } {
  const levels: Level[] = [];
  const all = new Map<string, Flag>();
  const globalFlags = flagsOf(globals);
  const help: Flag = {
    long: '--help',
    short: '-h',
    takesValue: false,
    choices: [],
    files: false,
    description: 'show help',
  };
  const visit = (path: string, specs: readonly CommandDef[] | undefined, own: Flag[], args: Arg[]) => {
    const flags = [...own, ...globalFlags, help];
    for (const f of flags) all.set(f.long, f);
    levels.push({ path, subcommands: (specs ?? []).map((c) => ({ name: c.name, summary: c.summary })), flags, args });
    for (const c of specs ?? [])
      visit(path ? `${path} ${c.name}` : c.name, c.subcommands, flagsOf(c.flags), (c.args ?? []).map(argOf));
  };
  visit(
    '',
    commands,
    [
      {
        long: '--version',
        short: '-V',
        takesValue: false,
        choices: [],
        files: false,
        description: 'print the version',
      },
    ],
    [],
  );
  return { levels, flags: [...all.values()] };
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The flags whose values complete, per command path: one flag name may mean different values in two commands (--status). */
function valuesByPath(levels: Level[]): Array<{ path: string; flag: Flag }> {
  return levels.flatMap((l) =>
    l.flags
      .filter((f) => f.takesValue && (f.choices.length > 0 || f.files || f.dynamic))
      .map((flag) => ({ path: l.path, flag })),
  );
}
const words = (xs: string[]) => xs.join(' ');

/** `path|n` case labels for the positional arguments of each command (a variadic one: ten more places). */
function argsByPath(levels: Level[]): Array<{ label: string; arg: Arg }> {
  return levels.flatMap((l) =>
    l.args.flatMap((arg, i) =>
      (arg.variadic ? Array.from({ length: 10 }, (_, k) => i + k) : [i]).map((n) => ({ label: `${l.path}|${n}`, arg })),
    ),
  );
}

type Values = { choices: readonly string[]; files?: boolean; dynamic?: DynamicValues | undefined };
const bashValues = (v: Values) =>
  v.dynamic
    ? `_orc_dynamic ${v.dynamic}`
    : v.choices.length
      ? `COMPREPLY=($(compgen -W ${sq(words([...v.choices]))} -- "$cur"))`
      : v.files
        ? 'COMPREPLY=($(compgen -f -- "$cur"))'
        : 'COMPREPLY=()';
const zshValues = (v: Values) =>
  v.dynamic
    ? `_orc_dynamic ${v.dynamic}`
    : v.choices.length
      ? `compadd -- ${v.choices.map(sq).join(' ')}`
      : v.files
        ? '_files'
        : ':';

// oxlint-disable-next-line max-lines-per-function -- a data table: the bash script's template
export function bashScript(commands: readonly CommandDef[], globals: Record<string, FlagDef>): string {
  const { levels, flags } = completionModel(commands, globals);
  const valued = flags.filter((f) => f.takesValue);
  const paths = levels
    .filter((l) => l.path)
    .map((l) => `${sq(l.path)}`)
    .join('|');
  return `# bash completion for orc. Generated by \`orc completion bash\`; do not edit.
# Load it with: source <(orc completion bash)
_orc_dynamic() {
  # Run ids, webhook ids, profile names: asked of orc, which answers within about 300 ms or not at all.
  COMPREPLY=($(compgen -W "$(command orc __complete "$1" --values 2>/dev/null)" -- "$cur"))
}
_orc() {
  local cur prev path cand i w npos=0
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path=""
  # The command path: the words so far that are commands, skipping flags and the values they take.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case "\${COMP_WORDS[i-1]}" in ${valued.map((f) => f.long).join('|')}) continue ;; esac
    cand="\${path:+$path }$w"
    case "$cand" in ${paths}) path="$cand" ;; *) break ;; esac
  done
  # The arguments after the command path, so far.
  for (( ; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case "\${COMP_WORDS[i-1]}" in ${valued.map((f) => f.long).join('|')}) continue ;; esac
    npos=$((npos + 1))
  done
  case "$path|$prev" in
${valuesByPath(levels)
  .map(({ path, flag: f }) => `    ${sq(`${path}|${f.long}`)}) ${bashValues(f)}; return ;;`)
  .join('\n')}
  esac
  if [[ "$cur" != -* ]]; then
    case "$path|$npos" in
${argsByPath(levels)
  .map(({ label, arg }) => `      ${sq(label)}) ${bashValues(arg)}; return ;;`)
  .join('\n')}
    esac
  fi
  case "$prev" in
${valued
  .map(
    (f) =>
      `    ${f.long}) ${f.choices.length ? `COMPREPLY=($(compgen -W ${sq(words([...f.choices]))} -- "$cur"))` : f.files ? 'COMPREPLY=($(compgen -f -- "$cur"))' : 'COMPREPLY=()'}; return ;;`,
  )
  .join('\n')}
  esac
  local subs flags
  case "$path" in
${levels.map((l) => `    ${l.path ? sq(l.path) : '""'}) subs=${sq(words(l.subcommands.map((c) => c.name)))}; flags=${sq(words(l.flags.flatMap((f) => [f.long, ...(f.short ? [f.short] : [])])))} ;;`).join('\n')}
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); else COMPREPLY=($(compgen -W "$subs" -- "$cur")); fi
}
complete -F _orc orc
`;
}

// oxlint-disable-next-line max-lines-per-function -- a data table: the zsh script's template
export function zshScript(commands: readonly CommandDef[], globals: Record<string, FlagDef>): string {
  const { levels, flags } = completionModel(commands, globals);
  const valued = flags.filter((f) => f.takesValue);
  const paths = levels
    .filter((l) => l.path)
    .map((l) => `${sq(l.path)}`)
    .join('|');
  const arr = (xs: string[]) => `(${xs.map(sq).join(' ')})`;
  return `#compdef orc
# zsh completion for orc. Generated by \`orc completion zsh\`; do not edit.
# Install it as _orc in a folder of $fpath, or: source <(orc completion zsh)
_orc_dynamic() {
  # Run ids, webhook ids, profile names: asked of orc, which answers within about 300 ms or not at all.
  local -a lines vals shown
  lines=("\${(@f)$(command orc __complete $1 2>/dev/null)}")
  [[ -z \${lines[1]} ]] && return
  vals=("\${lines[@]%%$'\\t'*}")
  shown=("\${lines[@]//$'\\t'/ -- }")
  compadd -l -d shown -- $vals
}
_orc() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} cmdpath="" cand w i npos=0
  local -a subs descs flags
  for (( i = 2; i < CURRENT; i++ )); do
    w=\${words[i]}
    [[ $w == -* ]] && continue
    case \${words[i-1]} in (${valued.map((f) => f.long).join('|')}) continue ;; esac
    cand="\${cmdpath:+$cmdpath }$w"
    case $cand in (${paths}) cmdpath=$cand ;; (*) break ;; esac
  done
  for (( ; i < CURRENT; i++ )); do
    w=\${words[i]}
    [[ $w == -* ]] && continue
    case \${words[i-1]} in (${valued.map((f) => f.long).join('|')}) continue ;; esac
    (( npos++ ))
  done
  case "$cmdpath|$prev" in
${valuesByPath(levels)
  .map(({ path, flag: f }) => `    (${sq(`${path}|${f.long}`)}) ${zshValues(f)}; return ;;`)
  .join('\n')}
  esac
  if [[ $cur != -* ]]; then
    case "$cmdpath|$npos" in
${argsByPath(levels)
  .map(({ label, arg }) => `      (${sq(label)}) ${zshValues(arg)}; return ;;`)
  .join('\n')}
    esac
  fi
  case $prev in
${valued.map((f) => `    (${f.long}) ${f.choices.length ? `compadd -- ${f.choices.map(sq).join(' ')}` : f.files ? '_files' : ':'}; return ;;`).join('\n')}
  esac
  case $cmdpath in
${levels
  .map(
    (l) =>
      `    (${l.path ? sq(l.path) : "''"}) subs=${arr(l.subcommands.map((c) => c.name))}; descs=${arr(l.subcommands.map((c) => `${c.name} -- ${c.summary}`))}; flags=${arr(l.flags.flatMap((f) => [f.long, ...(f.short ? [f.short] : [])]))} ;;`,
  )
  .join('\n')}
  esac
  if [[ $cur == -* ]]; then compadd -- $flags; else compadd -d descs -- $subs; fi
}
if [[ \${funcstack[1]} == _orc ]]; then _orc "$@"; else compdef _orc orc; fi
`;
}

export function fishScript(commands: readonly CommandDef[], globals: Record<string, FlagDef>): string {
  const { levels, flags } = completionModel(commands, globals);
  const lines = fishPrelude(
    flags.filter((f) => f.takesValue).map((f) => f.long),
    levels.filter((l) => l.path).map((l) => sq(l.path)),
  );
  for (const l of levels) lines.push(...fishLevel(l));
  return `${lines.join('\n')}\n`;
}

const fishValues = (v: Values) =>
  v.dynamic
    ? ` -a ${sq(`(command orc __complete ${v.dynamic} 2>/dev/null)`)}`
    : v.choices.length
      ? ` -a ${sq(v.choices.join(' '))}`
      : '';

/** One level of the command path: its subcommands, its arguments' values, its flags. */
function fishLevel(l: Level): string[] {
  const lines: string[] = [];
  const at = `-n ${sq(`__orc_at ${sq(l.path)}`)}`;
  for (const c of l.subcommands) lines.push(`complete -c orc ${at} -a ${sq(c.name)} -d ${sq(c.summary)}`);
  l.args.forEach((a, i) => {
    const when = sq(`__orc_at ${sq(l.path)}; and __orc_npos ${i}${a.variadic ? ' +' : ''}`);
    const values = fishValues(a);
    if (values) lines.push(`complete -c orc -n ${when}${values}`);
  });
  for (const f of l.flags) {
    const value = f.takesValue
      ? f.dynamic || f.choices.length
        ? ` -x${fishValues(f)}`
        : f.files
          ? ' -r -F'
          : ' -x'
      : '';
    lines.push(
      `complete -c orc ${at} -l ${f.long.slice(2)}${f.short ? ` -s ${f.short.slice(1)}` : ''}${value} -d ${sq(f.description)}`,
    );
  }
  return lines;
}

/** The fish script's functions: the walk over the words typed, where it is, how many arguments follow. */
function fishPrelude(valued: string[], paths: string[]): string[] {
  return [
    '# fish completion for orc. Generated by `orc completion fish`; do not edit.',
    '# Install it: orc completion fish > ~/.config/fish/completions/orc.fish',
    '# One walk over the words typed: how many arguments follow the command path, then the path.',
    'function __orc_walk',
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    '    set -l path',
    '    set -l skip 0',
    '    set -l inpath 1',
    '    set -l n 0',
    '    for t in $tokens',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $t',
    `            case ${valued.join(' ')}`,
    '                set skip 1',
    '                continue',
    "            case '-*'",
    '                continue',
    '        end',
    '        if test $inpath = 1',
    '            set -l cand (string join " " $path $t)',
    `            if contains -- "$cand" ${paths.join(' ')}`,
    '                set path $path $t',
    '                continue',
    '            end',
    '            set inpath 0',
    '        end',
    '        set n (math $n + 1)',
    '    end',
    '    echo $n $path',
    'end',
    'function __orc_at',
    '    set -l r (string split -m 1 " " -- (__orc_walk))',
    '    test "$(string join " " $r[2..-1])" = "$argv[1]"',
    'end',
    '# How many arguments follow the command path: __orc_npos 1 (exactly), __orc_npos 1 + (at least).',
    'function __orc_npos',
    '    set -l n (string split -m 1 " " -- (__orc_walk))[1]',
    '    if test (count $argv) -ge 2; and test "$argv[2]" = +',
    '        test $n -ge $argv[1]',
    '    else',
    '        test $n = $argv[1]',
    '    end',
    'end',
    'complete -c orc -f',
  ];
}
