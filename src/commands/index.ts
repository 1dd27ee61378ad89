// Every command of orc, as data. Handlers are dynamic imports: a command pays only for what it uses.
import type { CommandSpec } from './types.js';

export const COMMANDS: CommandSpec[] = [
  {
    name: 'sandbox',
    summary: 'Run the local emulator of the Run Orchestration Service',
    subcommands: [
      {
        name: 'start',
        summary: 'Start the sandbox (in the foreground unless --detach)',
        options: [
          { flags: '--host <host>', description: 'address to listen on (loopback unless you mean otherwise)', default: '127.0.0.1' },
          { flags: '--port <port>', description: 'port to listen on; 0 picks a free one', default: '4010' },
          { flags: '--api-key <key>', description: 'the test key the sandbox accepts (sk_test_…)', default: 'sk_test_orc_sandbox_local' },
          { flags: '--stage-ms <ms>', description: 'how long one pipeline stage takes', default: '4000' },
          { flags: '--signed-url-ttl <s>', description: 'lifetime of signed artifact URLs, in seconds', default: '300' },
          { flags: '--retry-base-ms <ms>', description: 'first webhook retry delay; doubles each attempt', default: '1000' },
          { flags: '--rate-limit <n>', description: 'requests per second per key; 0 for no limit', default: '100' },
          { flags: '--seed <n>', description: 'varies the generated specs and scores; the same seed gives the same ones', default: '0' },
          { flags: '--data-dir <dir>', description: 'folder of the sandbox database (default: <config folder>/sandbox)' },
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
