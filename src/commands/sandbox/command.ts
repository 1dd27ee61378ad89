// `orc sandbox …`: the local emulator of the service.
import { DEFAULT_SANDBOX_PORT } from '../../config/sandbox-defaults.js';
import { command, flag, handled } from '../spec.js';

export const start = command({
  name: 'start',
  summary: 'Start the sandbox (in the foreground unless --detach)',
  flags: {
    host: flag.string('host', 'address to listen on (loopback unless you mean otherwise)', { default: '127.0.0.1' }),
    port: flag.int('port', 'port to listen on; 0 picks a free one', { min: 0, max: 65535, default: DEFAULT_SANDBOX_PORT }),
    apiKey: flag.string('key', 'the test key the sandbox accepts (sk_test_…; default: ORC_SANDBOX_API_KEY, else the built-in one)'),
    stageMs: flag.int('ms', 'how long one pipeline stage takes', { min: 1, default: 4000 }),
    signedUrlTtl: flag.int('s', 'lifetime of signed artifact URLs, in seconds', { min: 1, default: 300 }),
    retryBaseMs: flag.int('ms', 'first webhook retry delay; doubles each attempt', { min: 1, default: 1000 }),
    rateLimit: flag.int('n', 'requests per second per key; 0 for no limit', { min: 0, default: 100 }),
    seed: flag.int('n', 'varies the generated specs and scores; the same seed gives the same ones', { min: 0, default: 0 }),
    ipaMib: flag.int('n', 'size of the generated ipa, in MiB (streamed, never held in memory)', { min: 1, max: 4096, default: 20 }),
    dataDir: flag.string('dir', 'folder of the sandbox database (default: <config folder>/sandbox)', { complete: 'files' }),
    memory: flag.bool('keep state in memory only; nothing survives a restart'),
    detach: flag.bool('run in the background; pid and log in the config folder'),
    keepaliveMs: flag.int('ms', 'SSE keep-alive interval', { min: 10, default: 15000, hidden: true }),
  },
  examples: ['orc sandbox start', 'orc sandbox start --detach --stage-ms 500', 'orc sandbox start --port 0 --memory --seed 7'],
});

export const status = command({
  name: 'status',
  summary: 'Say whether a background sandbox is running, and where (exit 1 if not)',
  examples: ['orc sandbox status', 'orc sandbox status --json'],
});

export const stop = command({ name: 'stop', summary: 'Stop the background sandbox', examples: ['orc sandbox stop', 'orc sandbox stop --json'] });

export default command({
  name: 'sandbox',
  summary: 'Run the local emulator of the Run Orchestration Service',
  examples: ['orc sandbox start --detach', 'orc sandbox status', 'orc sandbox stop'],
  subcommands: [handled(start, () => import('./start.js')), handled(status, () => import('./status.js')), handled(stop, () => import('./stop.js'))],
});
