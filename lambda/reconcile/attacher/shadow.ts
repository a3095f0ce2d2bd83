/**
 * Shadow reporting (issue #12): every dry-run attacher full pass — fenced off by the sidecar's
 * Lease, writes turned off, or asked for by the CLI — asks EC2 about every volume the cluster
 * names and sets each VolumeAttachment the sidecar handles beside EC2's word and our plan
 * (core/attacher/shadow.ts). Each disagreement gets one log line; the counts become metrics.
 */
import { compareWithSidecar, disagreements, type ShadowComparison } from '../../core/attacher/shadow.js';
import type { VaTarget } from '../../core/attacher/targets.js';
import type { VolumeId } from '../../core/types.js';
import { nodesByInstance } from '../../core/verification.js';
import type { PassContext } from '../pass/state.js';
import type { Executed } from '../pass/plan-and-execute.js';

/** Volumes EC2 is asked about in a shadow pass: those of every VA, and of every EBS PV (to find attachments no VA names). */
export function shadowVolumes(targets: readonly VaTarget[], pvNames: ReadonlyMap<VolumeId, string>): VolumeId[] {
  return [...targets.flatMap((t) => t.volumeId ?? []), ...pvNames.keys()];
}

export function reportShadow(ctx: PassContext, targets: readonly VaTarget[], executed: Executed): ShadowComparison {
  const comparison = compareWithSidecar({
    targets,
    observations: ctx.observations,
    actions: executed.plan.actions,
    heldBack: executed.plan.heldBack,
    nodeOfInstance: nodesByInstance(ctx.desired),
  });
  for (const row of disagreements(comparison)) ctx.deps.log.warn('shadow: disagrees with the sidecar', { ...row });
  ctx.deps.log.info('shadow compared', { ...comparison.counts });
  return comparison;
}
