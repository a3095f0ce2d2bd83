import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: [],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Powertools reads this itself; tests that check the metrics turn it back on.
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
    coverage: {
      provider: 'v8',
      include: ['lambda/core/**/*.ts'],
      reporter: ['text-summary'],
      // The core's rules are the product; every branch of them is specified by a test.
      thresholds: { branches: 95, lines: 95, functions: 95, statements: 95 },
    },
  },
});
