// Every command of orc, as data. Handlers are dynamic imports: a command pays only for what it uses.
import { DEFAULT_SANDBOX_PORT } from '../config/sandbox-defaults.js';
import { MONETIZATION_VALUES, RUN_STATUSES } from '../contract/events.js';
import { SANDBOX_DEFAULT_KEY } from '../contract/keys.js';
import type { CommandSpec, OptionSpec } from './types.js';

/** Flags every command takes. */
export const GLOBAL_OPTIONS: OptionSpec[] = [
  { flags: '--json', description: 'print one JSON document on stdout (for scripts)' },
  { flags: '--no-input', description: 'never prompt; fail with exit 2 where input is needed' },
  { flags: '--profile <name>', description: 'use this profile (default: ORC_PROFILE, then the active one, then the built-in sandbox)' },
  { flags: '--live', description: 'use the live key and the live service (default: the test key)' },
  { flags: '--base-url <url>', description: 'talk to this service address (default: ORC_BASE_URL, then the profile)' },
  { flags: '--debug', description: 'show the HTTP exchange on stderr (keys redacted)' },
];

/** How `watch` and `run create --watch` treat gates. */
const FOLLOW_OPTIONS: OptionSpec[] = [
  { flags: '--on-gate <mode>', description: 'when a gate opens: prompt (ask here), wait (someone else decides), exit (exit 6); default prompt at a terminal, else wait', choices: ['prompt', 'wait', 'exit'] },
  { flags: '--approve <gates>', description: 'approve these gates when they open, e.g. idea,brand,final', choices: ['idea,brand,final', 'idea', 'brand', 'final'] },
  { flags: '--until-gate', description: 'stop at the first pending gate with exit 6 (with --json, the gate event is the last line)' },
  { flags: '--no-bell', description: 'do not ring the terminal bell when a gate opens' },
];

export const COMMANDS: CommandSpec[] = [
  {
    name: 'run',
    summary: 'Create, read, list and cancel runs',
    examples: ['orc run create --pitch "A habit tracker" --audience runners --monetization freemium --watch', 'orc run list --status awaiting_approval', 'orc run get run_8fJ2kQ --json'],
    subcommands: [
      {
        name: 'create',
        summary: 'Create a run from an idea, or from source (ship mode)',
        options: [
          { flags: '--mode <mode>', description: 'idea or ship (default: ship with --source, else idea)', choices: ['idea', 'ship'] },
          { flags: '--pitch <text>', description: 'idea mode: what the app is' },
          { flags: '--audience <text>', description: 'idea mode: who it is for' },
          { flags: '--monetization <model>', description: 'idea mode: free, paid, freemium, subscription, ads or in_app_purchases', choices: MONETIZATION_VALUES },
          { flags: '--source <repo-url|spec.json|->', description: 'ship mode: a repository URL, an App Spec file, or - for either on stdin', files: true },
          { flags: '--idempotency-key <key>', description: 'your own key for this create (default: a new UUID, reused on every retry)' },
          { flags: '--watch', description: 'then watch it, as `orc watch` does (its flags below apply)' },
          ...FOLLOW_OPTIONS,
        ],
        examples: [
          'orc run create --pitch "A habit tracker for runners" --audience runners --monetization freemium --watch',
          'orc run create --pitch "A habit tracker for runners" --audience runners --monetization freemium',
          'orc run create --source https://github.com/acme/trail-log.git --json',
          'cat spec.json | orc run create --source -',
        ],
        load: () => import('./run/create.js'),
      },
      {
        name: 'get',
        summary: 'Show one run',
        args: ['<run>'],
        examples: ['orc run get run_8fJ2kQ', 'orc run get run_8fJ2kQ --json | jq -r .status'],
        load: () => import('./run/get.js'),
      },
      {
        name: 'list',
        summary: 'List runs, newest first',
        options: [
          { flags: '--status <status>', description: 'only runs with this status (running, awaiting_approval, accepted, rejected, failed, canceled)', choices: RUN_STATUSES },
          { flags: '--limit <n>', description: 'at most this many runs', default: '20' },
          { flags: '--all', description: 'every run, page after page' },
        ],
        examples: ['orc run list', 'orc run list --status awaiting_approval', 'orc run list --all --json | jq length'],
        load: () => import('./run/list.js'),
      },
      {
        name: 'cancel',
        summary: 'Cancel a run (asks first for a live run at a terminal)',
        args: ['<run>'],
        options: [{ flags: '-y, --yes', description: 'do not ask' }],
        examples: ['orc run cancel run_8fJ2kQ', 'orc run cancel run_8fJ2kQ --live --yes'],
        load: () => import('./run/cancel.js'),
      },
    ],
  },
  {
    name: 'watch',
    summary: 'Watch a run live, deciding its gates as they open',
    args: ['<run>'],
    options: FOLLOW_OPTIONS,
    examples: ['orc watch run_8fJ2kQ', 'orc watch run_8fJ2kQ --approve idea,brand,final --json', 'orc watch run_8fJ2kQ --until-gate --json | tail -n 1'],
    load: () => import('./watch/command.js'),
  },
  {
    name: 'gate',
    summary: 'List and decide the approval gates of a run',
    examples: ['orc gate list run_8fJ2kQ', 'orc gate approve run_8fJ2kQ idea', 'orc gate reject run_8fJ2kQ brand --notes "Warmer palette"'],
    subcommands: [
      { name: 'list', summary: 'The three gates of a run: state, when decided, notes', args: ['<run>'], examples: ['orc gate list run_8fJ2kQ', 'orc gate list run_8fJ2kQ --json'], load: () => import('./gate/list.js') },
      {
        name: 'approve',
        summary: 'Approve a pending gate (idea, brand or final)',
        args: ['<run>', '<gate>'],
        options: [
          { flags: '--notes <text>', description: 'notes kept with the approval' },
          { flags: '--notes-file <file|->', description: 'notes from a file, or - for stdin', files: true },
        ],
        examples: ['orc gate approve run_8fJ2kQ idea', 'orc gate approve run_8fJ2kQ final --notes "Ship it"'],
        load: () => import('./gate/approve.js'),
      },
      {
        name: 'reject',
        summary: 'Reject a pending gate with notes; the run goes back to rework',
        args: ['<run>', '<gate>'],
        options: [
          { flags: '--notes <text>', description: 'why, and what to change (required; at a terminal your editor opens without it)' },
          { flags: '--notes-file <file|->', description: 'the notes from a file, or - for stdin', files: true },
        ],
        examples: ['orc gate reject run_8fJ2kQ brand --notes "Warmer palette, less corporate"', 'orc gate reject run_8fJ2kQ final --notes-file review.md'],
        load: () => import('./gate/reject.js'),
      },
    ],
  },
  {
    name: 'profile',
    summary: 'Manage profiles: a base URL with a test key and a live key',
    examples: ['orc profile add prod --base-url https://api.example.com', 'orc profile list', 'orc profile use prod'],
    subcommands: [
      {
        name: 'add',
        summary: 'Add or update a profile; keys from a masked prompt or stdin, never arguments',
        args: ['<name>'],
        options: [
          { flags: '--base-url <url>', description: 'the service address (https://…)' },
          { flags: '--with-key', description: 'read the key(s) from stdin, one a line (sk_test_… and/or sk_live_…)' },
        ],
        examples: ['orc profile add prod --base-url https://api.example.com', 'printf "%s\\n" "$TEST_KEY" "$LIVE_KEY" | orc profile add ci --base-url https://api.example.com --with-key'],
        load: () => import('./profile/add.js'),
      },
      { name: 'list', summary: 'List profiles (keys redacted)', examples: ['orc profile list', 'orc profile list --json'], load: () => import('./profile/list.js') },
      { name: 'use', summary: 'Make a profile the active one', args: ['<name>'], examples: ['orc profile use prod', 'orc profile use sandbox'], load: () => import('./profile/use.js') },
      {
        name: 'show',
        summary: 'Show a profile and where each key is kept',
        args: ['[name]'],
        examples: ['orc profile show', 'orc profile show prod --json'],
        load: () => import('./profile/show.js'),
      },
      { name: 'remove', summary: 'Remove a profile and its keys', args: ['<name>'], examples: ['orc profile remove old'], load: () => import('./profile/remove.js') },
    ],
  },
  {
    name: 'completion',
    summary: 'Print the shell completion script for bash, zsh or fish',
    args: ['<shell>'],
    examples: ['source <(orc completion bash)          # in ~/.bashrc', 'orc completion zsh > "${fpath[1]}/_orc"  # then restart zsh', 'orc completion fish > ~/.config/fish/completions/orc.fish'],
    load: () => import('./completion/command.js'),
  },
  {
    name: 'sandbox',
    summary: 'Run the local emulator of the Run Orchestration Service',
    examples: ['orc sandbox start --detach', 'orc sandbox status', 'orc sandbox stop'],
    subcommands: [
      {
        name: 'start',
        summary: 'Start the sandbox (in the foreground unless --detach)',
        options: [
          { flags: '--host <host>', description: 'address to listen on (loopback unless you mean otherwise)', default: '127.0.0.1' },
          { flags: '--port <port>', description: 'port to listen on; 0 picks a free one', default: String(DEFAULT_SANDBOX_PORT) },
          { flags: '--api-key <key>', description: 'the test key the sandbox accepts (sk_test_…)', default: SANDBOX_DEFAULT_KEY },
          { flags: '--stage-ms <ms>', description: 'how long one pipeline stage takes', default: '4000' },
          { flags: '--signed-url-ttl <s>', description: 'lifetime of signed artifact URLs, in seconds', default: '300' },
          { flags: '--retry-base-ms <ms>', description: 'first webhook retry delay; doubles each attempt', default: '1000' },
          { flags: '--rate-limit <n>', description: 'requests per second per key; 0 for no limit', default: '100' },
          { flags: '--seed <n>', description: 'varies the generated specs and scores; the same seed gives the same ones', default: '0' },
          { flags: '--data-dir <dir>', description: 'folder of the sandbox database (default: <config folder>/sandbox)', files: true },
          { flags: '--memory', description: 'keep state in memory only; nothing survives a restart' },
          { flags: '--detach', description: 'run in the background; pid and log in the config folder' },
          { flags: '--keepalive-ms <ms>', description: 'SSE keep-alive interval', default: '15000', hidden: true },
        ],
        examples: ['orc sandbox start', 'orc sandbox start --detach --stage-ms 500', 'orc sandbox start --port 0 --memory --seed 7'],
        load: () => import('./sandbox/start.js'),
      },
      {
        name: 'status',
        summary: 'Say whether a background sandbox is running, and where (exit 1 if not)',
        examples: ['orc sandbox status', 'orc sandbox status --json'],
        load: () => import('./sandbox/status.js'),
      },
      {
        name: 'stop',
        summary: 'Stop the background sandbox',
        examples: ['orc sandbox stop'],
        load: () => import('./sandbox/stop.js'),
      },
    ],
  },
];
