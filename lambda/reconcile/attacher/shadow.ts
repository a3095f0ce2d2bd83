/**
 * Shadow reporting (issue #12): every dry-run attacher full pass — fenced off by the sidecar's
 * Lease, writes turned off, or asked for by the CLI — asks EC2 about every volume the cluster
 * names and sets each VolumeAttachment the sidecar handles beside EC2's word and our plan
 * (core/attacher/shadow.ts). Each disagreement gets one log line; the counts become metrics.
 */
import pLimit from 'p-limit';
import { nextCall, type PreflightSeen } from '../../core/attacher/preflight.js';
import { compareWithSidecar, disagreements, type ShadowComparison, type SidecarLeaseSeen } from '../../core/attacher/shadow.js';
import type { VaTarget } from '../../core/attacher/targets.js';
import type { VolumeId } from '../../core/types.js';
import { nodesByInstance } from '../../core/verification.js';
import type { PassContext } from '../pass/state.js';
import type { Executed } from '../pass/plan-and-execute.js';
import type { SidecarLeaseReader } from './deps.js';

/** Whether the sidecar's Lease exists where the fence would look; a failed read is said, not thrown (a shadow never fails on it). */
export async function seeSidecarLease(reader: SidecarLeaseReader): Promise<SidecarLeaseSeen> {
  try {
    const lease = await reader.lock.get();
    if (lease === undefined) return { where: reader.where, found: false };
    return { where: reader.where, found: true, ...(lease.holderIdentity ? { holder: lease.holderIdentity } : {}) };
  } catch (error) {
    return { where: reader.where, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Volumes EC2 is asked about in a shadow pass: those of every VA, and of every EBS PV (to find attachments no VA names). */
export function shadowVolumes(targets: readonly VaTarget[], pvNames: ReadonlyMap<VolumeId, string>): VolumeId[] {
  return [...targets.flatMap((t) => t.volumeId ?? []), ...pvNames.keys()];
}

/** Dry runs one pass keeps in flight: the EC2 budget paces them anyway; this keeps a big cluster from queueing all at once. */
const PREFLIGHT_CONCURRENCY = 4;

/**
 * The preflight (core/attacher/preflight.ts): each VA's next call asked of EC2 with DryRun, on the
 * volumes this pass observed, by VA name. The instance as this pass saw it spares the attach's
 * dry run a DescribeInstances.
 */
export async function preflightTargets(ctx: PassContext, targets: readonly VaTarget[]): Promise<Map<string, PreflightSeen>> {
  const limit = pLimit(PREFLIGHT_CONCURRENCY);
  const answers = await Promise.all(
    targets.map((target) =>
      limit(async () => {
        const call = nextCall(target, target.volumeId === undefined ? undefined : ctx.observations.volumes?.get(target.volumeId));
        if (call === undefined) return undefined;
        const seen = ctx.seenInstances.get(call.instanceId)?.instance;
        const request = call.action === 'attach' && seen !== undefined ? { ...call, seen } : call;
        return [target.name, await ctx.deps.blockStorage.preflight(request)] as const;
      }),
    ),
  );
  return new Map(answers.filter((answer) => answer !== undefined));
}

export function reportShadow(
  ctx: PassContext,
  targets: readonly VaTarget[],
  executed: Executed,
  sidecarLease: SidecarLeaseSeen | undefined,
  preflights?: ReadonlyMap<string, PreflightSeen>,
): ShadowComparison {
  const comparison = compareWithSidecar({
    ...(sidecarLease === undefined ? {} : { sidecarLease }),
    ...(preflights === undefined ? {} : { preflights, grantableKeys: new Set(ctx.deps.settings.kmsKeyArns) }),
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
