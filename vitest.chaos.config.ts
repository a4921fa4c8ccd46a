import { defineConfig } from 'vitest/config';

// The chaos suite (npm run test:chaos): whole runs with killed workers and restarted Redis. Long, and
// excluded from `npm test`; one file at a time, since each run spawns its own processes.
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    testTimeout: 30 * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default'],
  },
});
