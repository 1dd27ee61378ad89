// Ends the test output with one plain line, `N passed, N failed, N skipped`, that any CI can read.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const count = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const m of modules) {
      for (const t of m.children.allTests()) count[t.result().state]++;
      // A file that did not load (a syntax error, a failing hook) has no tests to count: it counts as one failure.
      if (m.state() === 'failed' && ![...m.children.allTests()].some((t) => t.result().state === 'failed'))
        count.failed++;
    }
    process.stdout.write(`\n${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  }
}
