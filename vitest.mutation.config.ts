import { defineConfig } from 'vitest/config';

/**
 * The tests of one mutation stage (stryker.config.js, scripts/mutation.ts). The core is specified
 * by its own unit tests and the executor tests, in one stage. The pass is specified by the executor
 * tests (`reconcile:unit`, seconds) and the e2e worlds (`reconcile:e2e`, minutes): the worlds run
 * only against the mutants the executor tests left alive. The seeded fault suite stays out, so a
 * run fits a two-core machine.
 */
const testsByStage: Record<string, string[]> = {
  'core:all': ['test/core/**/*.test.ts', 'test/reconcile/**/*.test.ts'],
  'reconcile:unit': ['test/reconcile/**/*.test.ts'],
  'reconcile:e2e': ['test/e2e/**/*.test.ts'],
};

const stage = `${process.env.MUTATION_SCOPE ?? 'core'}:${process.env.MUTATION_STAGE ?? 'all'}`;
const include = testsByStage[stage];
if (include === undefined) throw new Error(`no mutation stage ${stage}: choose from ${Object.keys(testsByStage).join(', ')}`);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
    include,
  },
});
