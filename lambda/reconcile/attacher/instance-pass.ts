/**
 * Attacher mode's pass for an EC2 instance state-change event: the full attacher pass with EC2
 * asked about the instance (so its node is tainted out of service if it is stopped or terminated),
 * then, for a dead instance, the follow-through (dead-instance.ts). One report sums up both.
 */
import type { InstanceId } from '../../core/types.js';
import { summarize } from '../pass/summary.js';
import type { Budget, PassOptions, PassReport } from '../pass/types.js';
import type { AttacherDeps } from './deps.js';
import type { VaStep } from './act-on.js';
import { followDeadInstance } from './dead-instance.js';
import { attacherFullPass } from './full-pass.js';

/** The full pass's report with each follow-through step's actions and results added; convergence as the last step left it. */
function withSteps(report: PassReport, steps: readonly VaStep[], durationMs: number): PassReport {
  const summed = steps.map((step) => summarize(step.ctx, { ...report, verified: step.verified, problems: [] }, step.executed));
  const last = summed.at(-1);
  return {
    ...report,
    durationMs,
    actions: [...report.actions, ...summed.flatMap((s) => s.actions)],
    results: [...report.results, ...summed.flatMap((s) => s.results)],
    reportErrors: [...report.reportErrors, ...summed.flatMap((s) => s.reportErrors)],
    ...(last === undefined
      ? {}
      : { heldBack: last.heldBack, deferred: last.deferred, notAttached: last.notAttached, converged: last.converged }),
  };
}

export async function runDeadInstancePass(
  deps: AttacherDeps,
  instanceId: InstanceId,
  budget: Budget,
  options: PassOptions = {},
): Promise<PassReport> {
  const full = await attacherFullPass(deps, budget, options, [instanceId]);
  if (options.dryRun === true || !full.report.clusterComplete) return full.report;
  const steps = await followDeadInstance(deps, budget, { ctx: full.ctx, view: full.view, instanceId });
  return withSteps(full.report, steps, deps.clock() - full.report.startedAt);
}
