import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './test/long-first-sequencer.js';

// Integration tests share one Redis and spawn real processes; keep parallelism modest for a 2-core machine.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    sequence: { sequencer: LongFirstSequencer },
  },
});
