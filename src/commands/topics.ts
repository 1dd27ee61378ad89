// `orc help <topic>`: exit codes, environment, JSON output, the sandbox. One source for each: `orc help`
// prints it, and the README's sections between `<!-- topic:NAME -->` markers are made from it
// (`npm run docs`; a test keeps them the same).
import { PASS_SCORE, PREFLIGHT_RULE_TABLE, SCORE_PART_TABLE } from '../contract/sandbox-rules.js';
import { EVENT_KINDS } from '../contract/events.js';
import { EXIT_CODES } from '../exit/errors.js';
import { wrapWords as wrap } from '../ui/width.js';
import artifacts from '../../docs/topics/artifacts.md?raw';
import profiles from '../../docs/topics/profiles.md?raw';
import steering from '../../docs/topics/steering.md?raw';
import watching from '../../docs/topics/watching.md?raw';
import webhooks from '../../docs/topics/webhooks.md?raw';

export interface EnvVar {
  name: string;
  meaning: string;
}

export const ENVIRONMENT: readonly EnvVar[] = [
  { name: 'ORC_API_KEY', meaning: 'the key to use (sk_test_… or sk_live_…), over the profile; never printed whole' },
  { name: 'ORC_BASE_URL', meaning: 'the service address, over the profile (`--base-url` wins)' },
  { name: 'ORC_PROFILE', meaning: 'the profile to use, over the active one (`--profile` wins)' },
  {
    name: 'ORC_CONFIG_DIR',
    meaning:
      'the config folder (default: $XDG_CONFIG_HOME/orc or ~/.config/orc on Linux, ~/Library/Application Support/orc on macOS, %APPDATA%\\orc on Windows)',
  },
  { name: 'XDG_CONFIG_HOME', meaning: 'where the config folder goes on Linux when ORC_CONFIG_DIR is not set' },
  { name: 'APPDATA', meaning: 'where the config folder goes on Windows when ORC_CONFIG_DIR is not set' },
  {
    name: 'ORC_SANDBOX_PORT',
    meaning:
      'the port of the built-in sandbox profile, where orc looks for the local sandbox and starts one (4010); a sandbox this folder started on another port is not used',
  },
  { name: 'ORC_SANDBOX_API_KEY', meaning: 'the test key `orc sandbox start` accepts, instead of --api-key' },
  {
    name: 'ORC_SANDBOX_LIVE_KEY',
    meaning:
      '`orc sandbox start --tls --stand-in-live`: the live key the stand-in for the live service accepts (in the environment, never in argv)',
  },
  {
    name: 'ORC_MCP_TOKEN',
    meaning:
      '`orc mcp --http`: the bearer token its clients send, instead of one made and printed at each start (then printed nowhere); 16 characters or more, visible ASCII only (no whitespace, control characters, é or €; else exit 2)',
  },
  {
    name: 'HTTPS_PROXY',
    meaning:
      'the proxy for https requests (https_proxy wins; HTTP_PROXY when unset); tunnelled with CONNECT, so the proxy never sees the key; for this machine only a proxy on this machine is used',
  },
  {
    name: 'HTTP_PROXY',
    meaning:
      'the proxy for http requests (http_proxy wins), which orc makes only to this machine, sent in absolute form as curl does: used only when the proxy is on this machine too',
  },
  {
    name: 'NO_PROXY',
    meaning:
      'hosts that go direct, comma-separated (no_proxy wins): `*`, `example.com` (and its subdomains), `.example.com` (a trailing dot or not), `host:port`, an IP, an IP range (`10.0.0.0/8`, `fd00::/8`)',
  },
  {
    name: 'NODE_EXTRA_CA_CERTS',
    meaning:
      "a PEM file of CA certificates to trust besides the system's (Node reads it at start); a profile's --ca-file does the same for one profile",
  },
  {
    name: 'ORC_TELL_UNKNOWN',
    meaning:
      'set (not 0 or false): as --debug does, say on stderr each field, status, stage, event kind and error code the service sent that orc does not know and let pass, once per command',
  },
  {
    name: 'TRACEPARENT',
    meaning:
      'a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>; a later version is sent as 00) sent as the traceparent header on every request of the command; a malformed one is not sent (--debug says why)',
  },
  {
    name: 'TRACESTATE',
    meaning: 'sent as the tracestate header beside TRACEPARENT (printable, at most 512 characters)',
  },
  { name: 'ORC_NO_KEYCHAIN', meaning: 'set: keep live keys in the 0600 config file even where an OS keychain exists' },
  {
    name: 'ORC_WATCH_IDLE_TIMEOUT',
    meaning: 'seconds without a message or keep-alive that count as a dropped event stream (45)',
  },
  { name: 'ORC_WATCH_RECONNECTS', meaning: 'failed reconnects in a row before `watch` gives up (8)' },
  {
    name: 'ORC_HOOK_TIMEOUT_MS',
    meaning: "milliseconds `watch --on-gate-exec`'s command may run before it is killed with its process group (30000)",
  },
  { name: 'ORC_LISTEN_CHECK_INTERVAL', meaning: "seconds between `webhook listen`'s checks of its webhook (30)" },
  {
    name: 'ORC_COMPLETE_BUDGET_MS',
    meaning: 'milliseconds shell completion waits for the service before it offers nothing (300), for a slow machine',
  },
  {
    name: 'ORC_COMPLETE_DEBUG',
    meaning: 'set: `orc __complete` (what shell completion asks for run ids) says on stderr why it answered nothing',
  },
  {
    name: 'ORC_NO_HANDOVER',
    meaning: 'set: run on the Node that started orc, even when it is older than 22.12 and a Node 24 is in node_modules',
  },
  {
    name: 'ORC_HANDED_OVER',
    meaning:
      "orc's own mark on the Node 24 it hands over to; removed at once, so no command orc runs sees it (never set it)",
  },
  {
    name: 'VISUAL',
    meaning: 'the editor for notes and spec edits, first choice (it may carry arguments: `code --wait`)',
  },
  { name: 'EDITOR', meaning: 'the editor when VISUAL is not set (default vi at a terminal)' },
  {
    name: 'ORC_AGENT',
    meaning:
      "set: --help adds what an agent needs (flags for no prompts, exit codes); also seen from CLAUDECODE, CURSOR_AGENT, CODEX_SANDBOX, GEMINI_CLI and other agents' variables",
  },
  {
    name: 'ORC_ACCESSIBLE',
    meaning:
      'set: as --accessible, for screen readers and braille displays: nothing redrawn, no spinner, progress every 10%, questions as numbered lines',
  },
  {
    name: 'BROWSER',
    meaning: '`orc sandbox console`: the program that opens the link (default: xdg-open, open or start)',
  },
  { name: 'NO_COLOR', meaning: 'set: no colour and no spinner' },
  { name: 'CI', meaning: 'set: no colour, no spinner, no prompt (as --no-input)' },
  {
    name: 'TERM',
    meaning: "`dumb`: no colour; `foot`, `xterm-kitty`: `watch --notify` uses the terminal's notification",
  },
  {
    name: 'TERM_PROGRAM',
    meaning: "`iTerm.app`, `WezTerm`, `ghostty`: `watch --notify` sends OSC 9, the terminal's own notification",
  },
  { name: 'KITTY_WINDOW_ID', meaning: 'set (kitty): `watch --notify` sends OSC 9' },
  { name: 'WT_SESSION', meaning: 'set (Windows Terminal): `watch --notify` sends OSC 777' },
  {
    name: 'TMUX',
    meaning: 'set (inside tmux), or STY (inside screen): `watch --notify` sends no sequence (it would be dropped)',
  },
  { name: 'STY', meaning: 'set (inside GNU screen): as TMUX' },
  {
    name: 'DISPLAY',
    meaning: 'set, or WAYLAND_DISPLAY or DBUS_SESSION_BUS_ADDRESS: `watch --notify` may use `notify-send` (Linux)',
  },
  { name: 'WAYLAND_DISPLAY', meaning: 'as DISPLAY' },
  { name: 'DBUS_SESSION_BUS_ADDRESS', meaning: 'as DISPLAY' },
  { name: 'PATH', meaning: '`orc doctor`: whether orc can be typed as is' },
  { name: 'SHELL', meaning: '`orc doctor`: which shell to check completion for' },
  { name: 'HOME', meaning: '`orc doctor`: where the shell start-up files are (~/.bashrc, ~/.zshrc)' },
  { name: 'ZDOTDIR', meaning: "`orc doctor`: zsh's start-up folder, when not HOME" },
  { name: 'FPATH', meaning: '`orc doctor`: the folders zsh looks in for _orc' },
  { name: 'XDG_DATA_HOME', meaning: '`orc doctor`: where bash-completion looks for completions (~/.local/share)' },
];

export const MAGIC_WORDS: ReadonlyArray<{ word: string; effect: string }> = [
  { word: '#fail', effect: 'the run fails at 05_build' },
  { word: '#reject', effect: 'app review rejects the run' },
  {
    word: '#lowscore',
    effect:
      'the run starts from a spec with fixable problems (a name over 30 characters, a category the store does not know, a low-contrast palette of seven clashing colours, one screen, twelve features): it scores below the bar until `spec edit` fixes them',
  },
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
    text: async () =>
      EXIT_CODES.flatMap((c) => [
        `${String(c.code).padStart(3)}  ${c.meaning}`,
        ...wrap(`when: ${c.when}`, 5),
        ...wrap(`then: ${c.script}`, 5),
        '',
      ]),
    data: async () => EXIT_CODES,
  },
  {
    name: 'environment',
    summary: 'every environment variable orc reads',
    text: async () => {
      const width = Math.max(...ENVIRONMENT.map((e) => e.name.length));
      return ENVIRONMENT.flatMap((e) =>
        wrap(e.meaning, width + 2).map((l, i) => (i === 0 ? `${e.name.padEnd(width)}  ${l.trimStart()}` : l)),
      );
    },
    data: async () => ENVIRONMENT,
  },
  {
    name: 'commands',
    summary: 'every command, one line each',
    text: async () => {
      const all = await leafCommands();
      const width = Math.max(...all.map((c) => c.usage.length));
      return all.flatMap((c) =>
        wrap(c.summary, width + 4).map((l, i) => (i === 0 ? `${c.usage.padEnd(width)}    ${l.trimStart()}` : l)),
      );
    },
    data: async () => (await leafCommands()).map(({ usage, summary }) => ({ usage, summary })),
  },
  {
    name: 'json',
    summary: "the shape of each command's --json output",
    text: async () => [
      'With --json, stdout is exactly one JSON document (or NDJSON for streams); messages stay on stderr.',
      '--jq <expression> filters that JSON through jq (jq 1.8 itself) and implies --json; strings print raw,',
      "as jq -r does: `orc run list --jq '.[] | select(.gate_pending) | .id'`. A bad expression is exit 2.",
      'A failure under --json (or --jq) is one JSON object on stderr, stdout left empty:',
      '  { "error": { "type", "code", "message", "field"?, "request_id"?, "hint"?, "exit_code" } }',
      "(type and code are the service's for its errors; orc's own: usage_error/invalid_usage, unknown_option, …).",
      'Whatever else orc says goes to stderr as JSON lines too: { "notice": { "message" } } (a retry, an --approve),',
      '{ "warning": { "message", … } } (with --debug or ORC_TELL_UNKNOWN: what the service sent that orc let pass,',
      '"where" and "unknowns": [{ "kind", "path", "value"? }]); the error object comes last.',
      '`watch --max-wait` ending first adds a last NDJSON line { "type": "orc.max_wait", "run_id", "max_wait_s", "run" }.',
      '',
      ...(await leafCommands()).flatMap((c) => [c.path, ...wrap(c.json, 4)]),
    ],
    data: async () => (await leafCommands()).map((c) => ({ command: c.path, shape: c.json })),
  },
  ...markdownTopics(),
  {
    name: 'sandbox',
    summary: 'the local sandbox: its knobs (flags) and magic words',
    text: async () => {
      const knobs = await sandboxKnobs();
      const width = Math.max(...knobs.map((k) => k.flag.length));
      return [
        '`orc sandbox start` runs the service on this machine. With nothing configured, orc starts one in the',
        'background on http://127.0.0.1:4010 and uses it.',
        '',
        'Knobs:',
        ...knobs.flatMap((k) =>
          wrap(`${k.description}${k.default !== undefined ? ` (default ${k.default})` : ''}`, width + 4).map((l, i) =>
            i === 0 ? `  ${k.flag.padEnd(width)}  ${l.trimStart()}` : l,
          ),
        ),
        '',
        'Magic words in idea.pitch (or the spec name in ship mode) steer a run:',
        ...MAGIC_WORDS.flatMap((m) =>
          wrap(m.effect, 14).map((l, i) => (i === 0 ? `  ${m.word.padEnd(10)}  ${l.trimStart()}` : l)),
        ),
        '',
        ...rulesText(),
        '',
        '`orc scorecard <run>` shows each failing or warning check with its field, hint and a suggested value, and',
        'the parts of beauty and harmony with theirs; `orc spec edit <run> --field <path>` opens the spec there. The',
        "final gate's prompt shows the same and offers both (edit at a field, apply the suggested values).",
        '',
        `Event kinds: ${EVENT_KINDS.join(', ')}.`,
        '',
        'Steer it for your tests (orc help steering): --clock manual and advance, trigger <event-kind>,',
        'fault add|list|remove|clear, reset, export and start --import, exec -- <command>, logs [--follow].',
        '',
        'More: docs/sandbox.md (what it emulates, its store, its decisions).',
      ];
    },
    data: async () => ({
      knobs: await sandboxKnobs(),
      magic_words: MAGIC_WORDS,
      event_kinds: EVENT_KINDS,
      preflight_rules: PREFLIGHT_RULE_TABLE,
      score_parts: SCORE_PART_TABLE,
      pass_score: PASS_SCORE,
    }),
  },
];

/** The topics written as prose, one markdown file each in docs/topics/ (bundled into the help chunk). */
function markdownTopics(): Topic[] {
  const topics: Array<[string, string, string]> = [
    [
      'watching',
      'watching a run and deciding its gates: the view, the prompt, flags for scripts, the stream',
      watching,
    ],
    ['artifacts', 'the spec, the scorecard and the artifacts: editing, pulling, resuming, safety', artifacts],
    ['webhooks', 'webhooks: adding them, verifying signatures offline, listening and forwarding locally', webhooks],
    ['profiles', 'profiles and keys: where keys are kept, live and test, the rules a key obeys', profiles],
    [
      'steering',
      'steering the sandbox for tests: time, triggers, faults, reset, snapshots, exec, the journal',
      steering,
    ],
  ];
  return topics.map(([name, summary, text]) => ({
    name,
    summary,
    text: async () => text.trimEnd().split('\n'),
    data: async () => ({ name, markdown: text }),
  }));
}

export interface LeafCommand {
  /** `run create` */
  path: string;
  /** `orc run create [flags]`, or with its arguments: `orc gate approve <run> <gate> [flags]` */
  usage: string;
  summary: string;
  json: string;
}

/** Every command that runs (not the groups), from the command definitions, in the order `orc --help` lists them. */
export async function leafCommands(): Promise<LeafCommand[]> {
  const [{ NOUNS }, def] = await Promise.all([import('./index.js'), import('./define.js')]);
  const out: LeafCommand[] = [];
  const walk = (c: import('./define.js').CommandDef, prefix: string[]) => {
    const path = [...prefix, c.name];
    if (c.subcommands) return c.subcommands.forEach((sub) => walk(sub, path));
    const args = (c.args ?? []).map((a) => def.usageLine(a));
    const flags = Object.values(c.flags ?? {}).some((f) => !f.hidden) ? ['[flags]'] : [];
    out.push({
      path: path.join(' '),
      usage: ['orc', ...path, ...args, ...flags].join(' '),
      summary: c.summary,
      json: c.json ?? '',
    });
  };
  for (const n of NOUNS) walk((await n.load()).default, []);
  return out;
}

/** The sandbox's flags, from its knobs (the one source). */
/** The rules the sandbox judges a spec by: each check with its field and limit, each part of the scores. */
function rulesText(): string[] {
  const id = Math.max(...PREFLIGHT_RULE_TABLE.map((r) => r.id.length));
  return [
    'Pre-flight, from the App Spec (a check names its field, and says how to pass when it does not):',
    ...PREFLIGHT_RULE_TABLE.flatMap((r) =>
      wrap(
        `${r.field}: fails when ${r.fails}${r.warns ? `; warns when ${r.warns}` : ''}. ${r.source}${r.review ? '; app review rejects for it' : ''}`,
        id + 4,
      ).map((l, i) => (i === 0 ? `  ${r.id.padEnd(id)}  ${l.trimStart()}` : l)),
    ),
    '',
    `Scores: beauty and harmony, each the weighed mean of its parts; the scorecard passes at ${PASS_SCORE} (their mean)`,
    'with no failing check:',
    ...SCORE_PART_TABLE.flatMap((p) =>
      wrap(`${p.of} ×${p.weight}, ${p.field}: ${p.scores}`, 14).map((l, i) =>
        i === 0 ? `  ${p.name.padEnd(10)}  ${l.trimStart()}` : l,
      ),
    ),
  ];
}

async function sandboxKnobs(): Promise<Array<{ flag: string; description: string; default?: string }>> {
  const { KNOBS } = await import('../contract/sandbox-knobs.js');
  return Object.entries(KNOBS)
    .filter(([, k]) => !('hidden' in k && k.hidden))
    .map(([key, k]) => ({
      flag: `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} <${k.value}>`,
      description: k.description,
      default: String(k.default),
    }));
}

/** The README's version of a topic (markdown), between its markers. */
export async function topicMarkdown(name: string): Promise<string> {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  switch (name) {
    case 'exit-codes':
      return [
        '| code | meaning | when | what a script should do |',
        '|---|---|---|---|',
        ...EXIT_CODES.map((c) => `| ${c.code} | ${c.meaning} | ${cell(c.when)} | ${cell(c.script)} |`),
      ].join('\n');
    case 'commands':
      return [
        '| command | what it does |',
        '|---|---|',
        ...(await leafCommands()).map((c) => `| \`${cell(c.usage)}\` | ${cell(c.summary)} |`),
      ].join('\n');
    case 'json':
      return [
        '| command | `--json` prints |',
        '|---|---|',
        ...(await leafCommands()).map((c) => `| \`${c.path}\` | ${cell(c.json)} |`),
      ].join('\n');
    case 'environment':
      return [
        '| variable | meaning |',
        '|---|---|',
        ...ENVIRONMENT.map((e) => `| \`${e.name}\` | ${cell(e.meaning)} |`),
      ].join('\n');
    default:
      throw new Error(`no markdown for topic ${name}`);
  }
}
