// `orc help <topic>`: exit codes, environment, JSON output, the sandbox. One source for each: `orc help`
// prints it, and the README's sections between `<!-- topic:NAME -->` markers are made from it
// (`npm run docs`; a test keeps them the same).
import { EVENT_KINDS } from '../contract/events.js';
import { EXIT_CODES } from '../errors.js';

export interface EnvVar {
  name: string;
  meaning: string;
}

export const ENVIRONMENT: readonly EnvVar[] = [
  { name: 'ORC_API_KEY', meaning: 'the key to use (sk_test_… or sk_live_…), over the profile; never printed whole' },
  { name: 'ORC_BASE_URL', meaning: 'the service address, over the profile (`--base-url` wins)' },
  { name: 'ORC_PROFILE', meaning: 'the profile to use, over the active one (`--profile` wins)' },
  { name: 'ORC_CONFIG_DIR', meaning: 'the config folder (default: $XDG_CONFIG_HOME/orc or ~/.config/orc on Linux, ~/Library/Application Support/orc on macOS, %APPDATA%\\orc on Windows)' },
  { name: 'XDG_CONFIG_HOME', meaning: 'where the config folder goes on Linux when ORC_CONFIG_DIR is not set' },
  { name: 'APPDATA', meaning: 'where the config folder goes on Windows when ORC_CONFIG_DIR is not set' },
  { name: 'ORC_SANDBOX_PORT', meaning: 'the port of the built-in sandbox profile, where orc looks for the local sandbox and starts one (4010)' },
  { name: 'ORC_SANDBOX_API_KEY', meaning: 'the test key `orc sandbox start` accepts, instead of --api-key' },
  { name: 'ORC_NO_KEYCHAIN', meaning: 'set: keep live keys in the 0600 config file even where an OS keychain exists' },
  { name: 'ORC_WATCH_IDLE_TIMEOUT', meaning: 'seconds without a message or keep-alive that count as a dropped event stream (45)' },
  { name: 'ORC_WATCH_RECONNECTS', meaning: 'failed reconnects in a row before `watch` gives up (8)' },
  { name: 'ORC_LISTEN_CHECK_INTERVAL', meaning: "seconds between `webhook listen`'s checks of its webhook (30)" },
  { name: 'ORC_COMPLETE_DEBUG', meaning: 'set: `orc __complete` (what shell completion asks for run ids) says on stderr why it answered nothing' },
  { name: 'ORC_NO_HANDOVER', meaning: 'set: run on the Node that started orc, even when it is older than 22.12 and a Node 24 is in node_modules (orc sets it for itself)' },
  { name: 'VISUAL', meaning: 'the editor for notes and spec edits, first choice (it may carry arguments: `code --wait`)' },
  { name: 'EDITOR', meaning: 'the editor when VISUAL is not set (default vi at a terminal)' },
  { name: 'NO_COLOR', meaning: 'set: no colour and no spinner' },
  { name: 'CI', meaning: 'set: no colour, no spinner, no prompt (as --no-input)' },
  { name: 'TERM', meaning: '`dumb`: no colour' },
  { name: 'PATH', meaning: '`orc doctor`: whether orc can be typed as is' },
  { name: 'SHELL', meaning: '`orc doctor`: which shell to check completion for' },
  { name: 'HOME', meaning: '`orc doctor`: where the shell start-up files are (~/.bashrc, ~/.zshrc)' },
  { name: 'ZDOTDIR', meaning: "`orc doctor`: zsh's start-up folder, when not HOME" },
  { name: 'FPATH', meaning: '`orc doctor`: the folders zsh looks in for _orc' },
  { name: 'XDG_DATA_HOME', meaning: '`orc doctor`: where bash-completion looks for completions (~/.local/share)' },
];

export interface JsonShape {
  command: string;
  shape: string;
}

export const JSON_SHAPES: readonly JsonShape[] = [
  { command: 'run create | get | cancel', shape: 'the run: { id, mode, status, stage, gate_pending, app_id, created_at, updated_at }' },
  { command: 'run list', shape: 'an array of runs' },
  { command: 'watch, run create --watch', shape: 'NDJSON: one event envelope a line, { id, type, created_at, run_id, data }, as it arrives ("synthetic": true when polled)' },
  { command: 'gate list', shape: 'an array of gates: { name, state, decided_at, notes }' },
  { command: 'gate approve | reject', shape: 'the gate as decided' },
  { command: 'spec get', shape: 'the App Spec' },
  { command: 'spec edit', shape: 'the App Spec as updated; { "changed": false } when nothing was sent; with --dry-run, the merge patch' },
  { command: 'scorecard', shape: '{ score: { beauty, harmony, score, total }, passed, preflight: { passed, checks: [{ id, title, status, detail }] } }' },
  { command: 'artifacts list', shape: 'the manifest: an array of { kind, status, content_type, size, sha256, files, updated_at }' },
  { command: 'artifacts pull', shape: '{ run, dir, files: [{ kind, name, path, size, sha256, state: downloaded|resumed|present }], pending: [kind], failed: [{ kind, name, path, error }] }' },
  { command: 'webhook add', shape: 'the webhook with its secret: { id, url, events, status, created_at, secret }' },
  { command: 'webhook list | get', shape: 'an array of webhooks | one webhook, never a secret' },
  { command: 'webhook remove', shape: '{ id, deleted: true }' },
  { command: 'webhook deliveries', shape: 'an array of { id, event_id, event_type, status, attempts, last_status_code, next_attempt_at, created_at }' },
  { command: 'webhook redeliver', shape: 'the delivery, queued again' },
  { command: 'webhook verify', shape: '{ valid: true, timestamp, signed_at, age_s } | { valid: false, reason, message }' },
  { command: 'webhook listen', shape: 'NDJSON: each verified event as received, one a line' },
  { command: 'api', shape: 'the answer body as it came; with --paginate, one array of every item' },
  { command: 'doctor', shape: '{ ok, checks: [{ id, status: pass|warn|fail, message, fix }] }' },
  { command: 'profile list | show', shape: 'profiles with keys redacted, and where each key is kept' },
  { command: 'sandbox status', shape: '{ running, url, pid, … }' },
  { command: '--version', shape: '{ version }' },
];

export const MAGIC_WORDS: ReadonlyArray<{ word: string; effect: string }> = [
  { word: '#fail', effect: 'the run fails at 05_build' },
  { word: '#reject', effect: 'app review rejects the run' },
  { word: '#lowscore', effect: 'a scorecard that does not pass, with failing pre-flight checks' },
];

export interface Topic {
  name: string;
  summary: string;
  /** The topic as text for a terminal (or a pipe). */
  text(): Promise<string[]>;
  /** The topic as data, for --json. */
  data(): Promise<unknown>;
}

export const TOPICS: readonly Topic[] = [
  {
    name: 'exit-codes',
    summary: 'each exit code, when it happens, and what a script should do',
    text: async () => EXIT_CODES.flatMap((c) => [`${String(c.code).padStart(3)}  ${c.meaning}`, ...wrap(`when: ${c.when}`, 5), ...wrap(`then: ${c.script}`, 5), '']),
    data: async () => EXIT_CODES,
  },
  {
    name: 'environment',
    summary: 'every environment variable orc reads',
    text: async () => {
      const width = Math.max(...ENVIRONMENT.map((e) => e.name.length));
      return ENVIRONMENT.flatMap((e) => wrap(e.meaning, width + 2).map((l, i) => (i === 0 ? `${e.name.padEnd(width)}  ${l.trimStart()}` : l)));
    },
    data: async () => ENVIRONMENT,
  },
  {
    name: 'json',
    summary: "the shape of each command's --json output",
    text: async () => [
      'With --json, stdout is exactly one JSON document (or NDJSON for streams); messages stay on stderr.',
      '',
      ...JSON_SHAPES.flatMap((j) => [j.command, ...wrap(j.shape, 4)]),
    ],
    data: async () => JSON_SHAPES,
  },
  {
    name: 'sandbox',
    summary: "the local sandbox: its knobs (flags) and magic words",
    text: async () => {
      const knobs = await sandboxKnobs();
      const width = Math.max(...knobs.map((k) => k.flag.length));
      return [
        '`orc sandbox start` runs the service on this machine. With nothing configured, orc starts one in the',
        'background on http://127.0.0.1:4010 and uses it.',
        '',
        'Knobs:',
        ...knobs.flatMap((k) => wrap(`${k.description}${k.default !== undefined ? ` (default ${k.default})` : ''}`, width + 4).map((l, i) => (i === 0 ? `  ${k.flag.padEnd(width)}  ${l.trimStart()}` : l))),
        '',
        'Magic words in idea.pitch (or the spec name in ship mode) steer a run:',
        ...MAGIC_WORDS.map((m) => `  ${m.word.padEnd(10)}  ${m.effect}`),
        '',
        `Event kinds: ${EVENT_KINDS.join(', ')}.`,
      ];
    },
    data: async () => ({ knobs: await sandboxKnobs(), magic_words: MAGIC_WORDS, event_kinds: EVENT_KINDS }),
  },
];

/** The sandbox's flags, from its knobs (the one source). */
async function sandboxKnobs(): Promise<Array<{ flag: string; description: string; default?: string }>> {
  const { KNOBS } = await import('../contract/sandbox-knobs.js');
  return Object.entries(KNOBS)
    .filter(([, k]) => !('hidden' in k && k.hidden))
    .map(([key, k]) => ({ flag: `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} <${k.value}>`, description: k.description, default: String(k.default) }));
}

/** Words to lines of at most `width` columns, each indented by `indent`. */
function wrap(text: string, indent: number, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(`${' '.repeat(indent)}${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(`${' '.repeat(indent)}${line}`);
  return lines;
}

/** The README's version of a topic (markdown), between its markers. */
export async function topicMarkdown(name: string): Promise<string> {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  switch (name) {
    case 'exit-codes':
      return ['| code | meaning | when | what a script should do |', '|---|---|---|---|', ...EXIT_CODES.map((c) => `| ${c.code} | ${c.meaning} | ${cell(c.when)} | ${cell(c.script)} |`)].join('\n');
    case 'environment':
      return ['| variable | meaning |', '|---|---|', ...ENVIRONMENT.map((e) => `| \`${e.name}\` | ${cell(e.meaning)} |`)].join('\n');
    default:
      throw new Error(`no markdown for topic ${name}`);
  }
}
