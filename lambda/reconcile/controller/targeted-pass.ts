/**
 * A targeted pass for one pod, node, instance or volume named by an event: it reads only around
 * the target (targeted-load.ts), asks EC2 about just those volumes and instances, and then plans,
 * acts and reports exactly as the full pass does, within the scope it read.
 */
import { instancesOf } from '../../core/verification.js';
import { pvNamesByVolume } from '../../core/volume-sources.js';
import { dryRunStore } from '../pass/dry-run.js';
import { createPassContext, planAndExecute, summarize } from '../pass/plan-and-execute.js';
import { markOutOfService } from '../pass/out-of-service.js';
import { loadTargeted } from './targeted-load.js';
import type { Budget, PassOptions, PassReport, ReconcileDeps, Target } from '../pass/types.js';
import { verifyAgainstEc2 } from '../pass/verify.js';
import { reportVolumeAttachments } from './volume-attachments.js';

export async function runTargetedPass(
  baseDeps: ReconcileDeps,
  target: Target,
  budget: Budget,
  options: PassOptions = {},
): Promise<PassReport> {
  const dryRun = options.dryRun === true;
  const deps = dryRun ? { ...baseDeps, store: dryRunStore(baseDeps.store) } : baseDeps;
  const startedAt = deps.clock();
  const passId = options.passId ?? deps.newId();
  const inputs = await loadTargeted(deps, target);
  const ctx = createPassContext(deps, budget, inputs.desired, inputs.actual, pvNamesByVolume(inputs.snapshot.pvs));

  const instanceIds = instancesOf(ctx.desired, ctx.actual, target.kind === 'instance' ? [target.instanceId] : []);
  const verified = (await verifyAgainstEc2(ctx, inputs.desired.scope?.volumes ?? [], instanceIds)) !== undefined;

  if (!dryRun) await markOutOfService(ctx, inputs.snapshot.nodes);
  const executed = await planAndExecute(ctx, dryRun);
  if (!dryRun) await reportVolumeAttachments(ctx, undefined);
  const problems = [
    ...inputs.desired.problems.map((message) => ({ source: 'kubernetes' as const, message })),
    ...inputs.corrupt.map((item) => ({ source: 'dynamodb' as const, message: `item ${item.key}: ${item.problem}` })),
  ];
  const summary = { passId, kind: 'targeted' as const, startedAt, dryRun, clusterComplete: true, verified, seeded: false, problems };
  return { ...summarize(ctx, summary, executed), target };
}
