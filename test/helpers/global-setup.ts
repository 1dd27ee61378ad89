// Every temporary folder of a test run (config folders, pulls, sandboxes' data, fake editors) goes under one
// folder of its own, removed when the run ends: /tmp does not fill up with thousands of them, run after run
// (a folder of 35,000 entries slowed every mkdtemp and made the suite seconds slower).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'orc-test-run-'));
  // Node's compile cache stays where it was (its default is under the temporary folder): each orc the tests
  // start reuses what the previous ones compiled, run after run.
  process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'node-compile-cache');
  process.env.TMPDIR = dir; // the workers, and every process the tests start, inherit it
  return () => rmSync(dir, { recursive: true, force: true });
}
