// A sandbox on port 0 with a fault proxy in front, set up for a test file and reset between tests.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { startTestSandbox, type TestSandbox } from './sandbox.js';
import type { SandboxOptions } from '../../src/sandbox/server.js';

export function useProxiedSandbox(opts: Partial<SandboxOptions>): {
  readonly sb: TestSandbox;
  readonly proxy: FaultProxy;
} {
  const state = {} as { sb: TestSandbox; proxy: FaultProxy };
  beforeAll(async () => {
    state.sb = await startTestSandbox(opts);
    state.proxy = await startFaultProxy(state.sb.url);
  });
  afterEach(() => {
    state.proxy.plan = () => ({ kind: 'pass' });
    state.proxy.seen.length = 0;
  });
  afterAll(async () => {
    await state.proxy.close();
    await state.sb.close();
  });
  return state;
}
