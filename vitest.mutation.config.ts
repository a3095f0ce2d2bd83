import { defineConfig } from 'vitest/config';

/**
 * The tests that specify one folder, for the mutation run (stryker.config.mjs). The core is
 * specified by its own unit tests; the pass by the executor tests and the e2e worlds. The seeded
 * fault suite stays out, so a run fits a shared two-core machine.
 */
const testsByScope: Record<string, string[]> = {
  core: ['test/core/**/*.test.ts', 'test/reconcile/**/*.test.ts'],
  reconcile: ['test/reconcile/**/*.test.ts', 'test/e2e/**/*.test.ts'],
};

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
    include: testsByScope[process.env.MUTATION_SCOPE ?? 'core'],
  },
});
