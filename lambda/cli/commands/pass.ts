/** `reconcile` and `plan`: one full pass (or its dry run) and its report. */
import type { Controller } from '../../composition.js';
import { formatPass } from '../format.js';
import type { Io } from '../io.js';
import { EXIT } from './exit.js';

/** A CLI pass may take this long (there is no Lambda timeout to respect). */
export const CLI_BUDGET_MS = 5 * 60_000;

export async function runPass(controller: Controller, options: { dryRun: boolean; json: boolean }, io: Io): Promise<number> {
  const report = await controller.fullPass(
    { deadline: controller.clock.now() + CLI_BUDGET_MS },
    { dryRun: options.dryRun, complete: true },
  );
  io.out(options.json ? JSON.stringify(report, null, 2) : formatPass(report));
  if (!report.clusterComplete) return EXIT.error;
  return report.converged ? EXIT.converged : EXIT.notConverged;
}
