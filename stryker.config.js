// Mutation testing of the rules and the pass, one folder and stage per run (`npm run mutation` runs
// every stage of both folders and writes the summary); not part of `npm test`. MUTATION_SCOPE picks
// the folder, MUTATION_STAGE (through vitest.mutation.config.ts) the tests. Incremental: a rerun
// only tests the mutants whose code or covering tests changed since the last run.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const scope = process.env.MUTATION_SCOPE ?? 'core';
const folders = { core: 'lambda/core', reconcile: 'lambda/reconcile' };
if (!(scope in folders)) throw new Error(`MUTATION_SCOPE must be one of ${Object.keys(folders).join(', ')}, not ${scope}`);
// MUTATION_FILES (comma-separated, under the folder) splits a long run into parts that each leave
// their own report and incremental file, so a run cut short keeps what finished.
const files = process.env.MUTATION_FILES?.split(',').filter(Boolean) ?? [];
const stage = process.env.MUTATION_STAGE ?? 'all';
// A later stage mutates only what the earlier ones left alive: MUTATION_RANGES names a JSON list of
// Stryker mutate ranges (`file:line:column-line:column`) that scripts/mutation.ts writes.
const ranges = process.env.MUTATION_RANGES ? JSON.parse(readFileSync(process.env.MUTATION_RANGES, 'utf8')) : undefined;
const partFiles = files.length > 0 ? `-${files.map((f) => path.basename(f, '.ts')).join('+')}` : '';
const part = `${scope}${partFiles}.${stage}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  // The vitest runner with its per-test filter fixed for Vitest 5 (see the plugin's comment).
  plugins: ['@stryker-mutator/vitest-runner', './scripts/stryker-vitest5.ts'],
  testRunner: 'vitest5',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: ranges ?? (files.length > 0 ? files.map((f) => `${folders[scope]}/${f}`) : [`${folders[scope]}/**/*.ts`]),
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants) would rerun every test each; the tests that load the
  // module already run them once in the dry run.
  ignoreStatic: true,
  // Not for a sampled stage: its unsampled mutants are answered without a test (scripts/stryker-vitest5.ts),
  // and a later run must not reuse those answers.
  incremental: process.env.MUTATION_ONLY === undefined,
  incrementalFile: `results/mutation/${part}-incremental.json`,
  // Two shared cores: one mutant at a time unless STRYKER_CONCURRENCY says otherwise.
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 1),
  timeoutMS: 20_000,
  ignorePatterns: ['dist', 'cdk.out', 'coverage', 'results', '.sandbox', 'infra', 'bench'],
  reporters: ['json', 'html', 'progress-append-only', 'clear-text'],
  jsonReporter: { fileName: `results/mutation/${part}.json` },
  htmlReporter: { fileName: `results/mutation/${part}.html` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: false },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
