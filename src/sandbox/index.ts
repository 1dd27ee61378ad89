// The sandbox as the rest of orc sees it: the one module of this folder that code outside it imports
// (`orc sandbox start` and `exec` start it, with its certificates, a steered clock, an imported snapshot).
// Everything else here is the sandbox's own; test/layers.test.ts holds the CLI to this door.
export { listenProblem, startSandbox, type RunningSandbox, type SandboxOptions } from './server.js';
export { sandboxTls, type SandboxTls } from './tls.js';
export { ManualClock, startClocks } from './manual-clock.js';
export { readSnapshot, readSnapshotFile } from './admin.js';
