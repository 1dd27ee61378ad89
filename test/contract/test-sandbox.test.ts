// The test harness's sandbox (test/helpers/sandbox.ts): what keeps tests independent of the machine's speed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveToEnd, quickClock, startTestSandbox, TEST_IPA_MIB, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ clock: quickClock() });
});
afterAll(() => sb.close());

describe('the test sandbox', () => {
  it('makes a small ipa unless a test asks for a size: no 20 MiB made and hashed a run', async () => {
    const run = await driveToEnd(sb, (await sb.createRun('A small build')).id);
    expect(run.status).toBe('accepted');
    const ipa = await sb.call('GET', `/v1/runs/${run.id}/artifacts/ipa`);
    expect(ipa.status, ipa.text).toBe(200);
    expect(ipa.body.files[0].size).toBeGreaterThan(TEST_IPA_MIB * 1024 * 1024);
    expect(ipa.body.files[0].size).toBeLessThan((TEST_IPA_MIB + 1) * 1024 * 1024);
  });
});
