// `orc sandbox …`: the local emulator of the service.
import { command, flag, handled } from '../../cli/spec.js';
import { KNOBS as K } from '../../contract/sandbox-knobs.js';

const { host, port, stageMs, signedUrlTtl, retryBaseMs, rateLimit, seed, ipaMib, keepaliveMs } = K;

export const start = command({
  name: 'start',
  summary: 'Start the sandbox (in the foreground unless --detach)',
  json: 'one line { listening: true, url, pid, data } once it listens; with --detach, { listening, url, detached, log }',
  flags: {
    host: flag.string(host.value, host.description, { default: host.default }),
    port: flag.int(port.value, port.description, port),
    apiKey: flag.string('key', 'the test key the sandbox accepts (sk_test_…; default: ORC_SANDBOX_API_KEY, else the built-in one)'),
    stageMs: flag.int(stageMs.value, stageMs.description, stageMs),
    signedUrlTtl: flag.int(signedUrlTtl.value, signedUrlTtl.description, signedUrlTtl),
    retryBaseMs: flag.int(retryBaseMs.value, retryBaseMs.description, retryBaseMs),
    rateLimit: flag.int(rateLimit.value, rateLimit.description, rateLimit),
    seed: flag.int(seed.value, seed.description, seed),
    ipaMib: flag.int(ipaMib.value, ipaMib.description, ipaMib),
    dataDir: flag.string('dir', 'folder of the sandbox database (default: <config folder>/sandbox)', { complete: 'files' }),
    memory: flag.bool('keep state in memory only; nothing survives a restart'),
    detach: flag.bool('run in the background; pid and log in the config folder'),
    keepaliveMs: flag.int(keepaliveMs.value, keepaliveMs.description, keepaliveMs),
  },
  examples: ['orc sandbox start', 'orc sandbox start --detach --stage-ms 500', 'orc sandbox start --port 0 --memory --seed 7'],
});

export const status = command({
  name: 'status',
  summary: 'Say whether a background sandbox is running, and where (exit 1 if not)',
  json: '{ running, url, pid, started_at, data, … } (the key redacted) | { running: false }',
  examples: ['orc sandbox status', 'orc sandbox status --json'],
});

export const stop = command({ name: 'stop', summary: 'Stop the background sandbox', json: '{ stopped, pid, url } | { stopped: false, running: false[, stale, pid] }', examples: ['orc sandbox stop', 'orc sandbox stop --json'] });

export default command({
  name: 'sandbox',
  summary: 'Run the local emulator of the Run Orchestration Service',
  examples: ['orc sandbox start --detach', 'orc sandbox status', 'orc sandbox stop'],
  subcommands: [handled(start, () => import('./start.js')), handled(status, () => import('./status.js')), handled(stop, () => import('./stop.js'))],
});
