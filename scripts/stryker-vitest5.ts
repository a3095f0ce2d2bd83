/**
 * Stryker's vitest runner, made to select the covering tests under Vitest 5.
 *
 * Vitest 5 matches `testNamePattern` against a test's `fullTestName` (suite names joined with
 * ' > '), while @stryker-mutator/vitest-runner 9.6 builds its per-test filter from names joined
 * with ' ': under Vitest 5 the filter matches nothing, no test runs, and every covered mutant is
 * reported as surviving (stryker-mutator/stryker-js#6210). This runner keeps the upstream one and
 * rewrites each test id of a mutant's filter to the name Vitest 5 matches. Drop it once the
 * upstream runner handles the separator.
 *
 * It also runs only a sample: when MUTATION_ONLY names a JSON list of mutant ids (file, location
 * and replacement, as scripts/mutation.ts writes them), any other mutant (one nested in a sampled
 * mutant's range, which Stryker cannot leave out) is answered as surviving without running a
 * test, and the summary reads that stage's report for the sampled mutants only.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { INSTRUMENTER_CONSTANTS } from '@stryker-mutator/api/core';
import { commonTokens, declareFactoryPlugin, type Injector, type PluginContext, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import {
  MutantRunStatus,
  type DryRunOptions,
  type DryRunResult,
  type MutantRunOptions,
  type MutantRunResult,
} from '@stryker-mutator/api/test-runner';
import type { Mutant } from '@stryker-mutator/api/core';
import type { Vitest } from 'vitest/node';
import { MutantIds, mutantKey, reportedRange } from './mutant-id.ts';
// The upstream runner's own modules: the package exports only its plugin list.
import { convertTestToTestResult, collectTestsFromSuite } from '../node_modules/@stryker-mutator/vitest-runner/dist/src/vitest-helpers.js';
import { VitestTestRunner } from '../node_modules/@stryker-mutator/vitest-runner/dist/src/vitest-test-runner.js';

/**
 * Where the dry run leaves the id map: only one runner process does the dry run, and Stryker
 * starts (and restarts) others that must filter the same way. Relative to the sandbox.
 */
const ID_MAP = '.stryker-vitest5-test-ids.json';

/** The sampled mutants' ids (MUTATION_ONLY), or undefined to run every mutant. */
const only =
  process.env.MUTATION_ONLY === undefined
    ? undefined
    : new MutantIds(JSON.parse(readFileSync(process.env.MUTATION_ONLY, 'utf8')) as string[]);

const sampled = (mutant: Mutant, ids: MutantIds): boolean =>
  ids.has(mutant.fileName, mutantKey(reportedRange(mutant.location), mutant.mutatorName, mutant.replacement));

class Vitest5TestRunner extends VitestTestRunner {
  /** Stryker's test id (names joined with ' ') → the same test's id with Vitest 5's full name. */
  private vitestIds: Map<string, string> | undefined;

  override async dryRun(options: DryRunOptions): Promise<DryRunResult> {
    const result = await super.dryRun(options);
    const vitest = (this as unknown as { ctx: Vitest }).ctx;
    const ids = vitest.state.getFiles().flatMap((file) =>
      collectTestsFromSuite(file).map((test): [string, string] => {
        const { id } = convertTestToTestResult(test);
        return [id, `${id.slice(0, id.indexOf('#'))}#${test.fullTestName}`];
      }),
    );
    writeFileSync(ID_MAP, JSON.stringify(ids));
    this.vitestIds = new Map(ids);
    return result;
  }

  override mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    if (only !== undefined && !sampled(options.activeMutant, only))
      return Promise.resolve({ status: MutantRunStatus.Survived, nrOfTests: 0 });
    this.vitestIds ??= new Map(JSON.parse(readFileSync(ID_MAP, 'utf8')) as [string, string][]);
    const ids = this.vitestIds;
    const testFilter = options.testFilter?.map((id) => {
      const vitestId = ids.get(id);
      if (vitestId === undefined) throw new Error(`no Vitest 5 name for test ${id}: the mutant would run no test`);
      return vitestId;
    });
    return super.mutantRun({ ...options, testFilter });
  }
}

function createRunner(injector: Injector<PluginContext>): Vitest5TestRunner {
  return injector.provideValue('globalNamespace', INSTRUMENTER_CONSTANTS.NAMESPACE).injectClass(Vitest5TestRunner);
}
createRunner.inject = tokens(commonTokens.injector);

export const strykerPlugins = [declareFactoryPlugin(PluginKind.TestRunner, 'vitest5', createRunner)];
