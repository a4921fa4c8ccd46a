/**
 * Printed after the default reporter's summary: every test that passed only on a retry (CI retries a failed test
 * once, see vitest.config.ts; a flaky test must stay visible, not pass silently) and the slowest files, so the
 * suite's time can be followed from CI's log.
 */
import path from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** How many of the slowest files are listed. */
const SLOWEST = 25;

/** The retried tests and the files' durations, at the end of the run. */
export class RunSummaryReporter implements Reporter {
  private readonly retried: string[] = [];

  /** Notes a test that needed more than one try. */
  onTestCaseResult(testCase: TestCase): void {
    const { retryCount, flaky } = testCase.diagnostic() ?? { retryCount: 0, flaky: false };
    if (retryCount === 0) return;
    const outcome = flaky ? 'passed on a retry' : 'failed on every try';
    const first = testCase.result().errors?.[0]?.message.split('\n')[0]?.slice(0, 300) ?? 'no error kept';
    this.retried.push(
      `${relative(testCase.module)} > ${testCase.fullName}: ${outcome} (${retryCount} retries); first failure: ${first}`,
    );
  }

  /** Prints what was retried and the slowest files. */
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines = [''];
    lines.push(
      this.retried.length === 0
        ? '[run summary] no test needed a retry'
        : `[run summary] ${this.retried.length} test(s) needed a retry (flaky):`,
    );
    lines.push(...this.retried.map((line) => `  ${line}`));
    const timed = testModules
      .map((module) => ({ file: relative(module), ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST);
    lines.push(`[run summary] the ${timed.length} slowest files:`);
    lines.push(...timed.map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

function relative(module: TestModule): string {
  return path.relative(process.cwd(), module.moduleId);
}
