import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './test/long-first-sequencer.js';

/**
 * Test files at once: twice the cores, at least 2 and at most 4 (each whole-run file holds a Chromium, workers and
 * apps: about 1 GB). A whole-run file spends most of its time waiting (lanes-kill: 74 s of CPU in 278 s), so on 2
 * cores four files at once keep the CPU busy where two left it half idle. NIGHTSHIFT_TEST_WORKERS overrides it.
 */
const TEST_WORKERS =
  Number(process.env.NIGHTSHIFT_TEST_WORKERS) || Math.min(4, Math.max(2, availableParallelism() * 2));

// Integration tests share one Redis (a key prefix each) and spawn real processes.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: TEST_WORKERS,
    reporters: ['default'],
    sequence: { sequencer: LongFirstSequencer },
  },
});
