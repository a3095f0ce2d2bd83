import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** Lines every folder of lambda/ outside the core keeps covered by the whole suite. */
const FOLDER_LINES = 85;
const folders = [
  'lambda/*.ts',
  'lambda/adapters/dynamodb/**',
  'lambda/adapters/ec2/**',
  'lambda/adapters/kubernetes/**',
  'lambda/cli/**',
  'lambda/handlers/**',
  'lambda/observability/**',
  'lambda/ports/**',
  'lambda/reconcile/**',
];

/**
 * The seeded fault suites, each mode's seeds cut into slices, a file each (test/faults/suite.ts):
 * files run side by side, so both workers share the suite. Vitest orders files by project name
 * ('dynamodb-local', 'faults', 'unit'), so the slices, the longest files, start first. The
 * watchers' faults, both modes, are a file of their own.
 */
const FAULT_SUITES = ['test/faults/suites/*.test.ts', 'test/faults/watchers.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One module graph per worker, not per file: importing the SDKs, client-node and the sandboxes
    // again for each of ~200 files was two thirds of the unit project's CPU (311 s against 83 s,
    // measured with and without). Tests own no module state: fixtures are built per test, env
    // changes are stubbed and restored; shuffled file orders pass (--sequence.shuffle.files).
    isolate: false,
    // Vitest's default in run mode is one worker fewer than the cores: on CI's two cores that is
    // one, and the suite runs file after file (14.5 minutes); two workers use both.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Powertools reads this itself; tests that check the metrics turn it back on.
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: FAULT_SUITES } },
      // The store's contract suite again, against AWS's DynamoDB Local (Java) instead of dynalite.
      {
        extends: true,
        test: { name: 'dynamodb-local', include: ['test/dynamodb/**/*.test.ts'], globalSetup: ['test/support/dynamodb-local-setup.ts'] },
      },
      // The seeded fault suite: `npm run test:faults` runs it alone.
      { extends: true, test: { name: 'faults', include: FAULT_SUITES } },
    ],
    coverage: {
      provider: 'v8',
      include: ['lambda/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: {
        // The core's rules are the product; every branch of them is specified by a test.
        'lambda/core/**': { branches: 95, lines: 95, functions: 95, statements: 95 },
        ...Object.fromEntries(folders.map((glob) => [glob, { lines: FOLDER_LINES }])),
      },
    },
  },
});
