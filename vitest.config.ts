import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __ORC_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores in CI. Three workers: end-to-end files wait on processes and terminals as much as they
    // compute, so a third keeps the cores busy. Workers are reused across files (no isolation): starting a
    // fresh process and vitest for each of 40 files cost about a third of the run's CPU.
    maxWorkers: 3,
    isolate: false,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
