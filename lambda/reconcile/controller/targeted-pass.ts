/**
 * A targeted pass for one pod, node, instance or volume named by an event: it reads only around
 * the target (targeted-load.ts), asks EC2 about just those volumes and instances, and then plans,
 * acts and reports exactly as the full pass does, within the scope it read.
 */
import { instancesOf } from '../../core/verification.js';
import { createPassContext } from '../pass/context.js';
import { markOutOfService } from '../pass/out-of-service.js';
import { planAndExecute } from '../pass/plan-and-execute.js';
import { runPass } from '../pass/template.js';
import type { Budget, PassOptions, PassReport, Target } from '../pass/types.js';
import { verifyAgainstEc2 } from '../pass/verify.js';
import type { ControllerDeps } from './deps.js';
import { controllerMode } from './reports.js';
import { loadTargeted } from './targeted-load.js';

export async function runTargetedPass(
  baseDeps: ControllerDeps,
  target: Target,
  budget: Budget,
  options: PassOptions = {},
): Promise<PassReport> {
  return runPass(baseDeps, options, async ({ deps, dryRun }) => {
    const inputs = await loadTargeted(deps, target);
    const mode = controllerMode(deps, { pvs: inputs.snapshot.pvs });
    const ctx = createPassContext(deps, budget, { desired: inputs.desired, actual: inputs.actual }, mode);

    const instanceIds = instancesOf(ctx.desired, ctx.actual, target.kind === 'instance' ? [target.instanceId] : []);
    const verified = (await verifyAgainstEc2(ctx, inputs.desired.scope?.volumes ?? [], instanceIds)) !== undefined;

    if (!dryRun) await markOutOfService(ctx, inputs.snapshot.nodes);
    const executed = await planAndExecute(ctx, dryRun);
    return { kind: 'targeted', ctx, executed, clusterComplete: true, verified, seeded: false, corrupt: inputs.corrupt, extra: { target } };
  });
}
