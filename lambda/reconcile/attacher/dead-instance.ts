/**
 * Attacher mode: the EC2 event's pass follows a dead instance through (issue 12). Once its node is
 * out of service, kcm deletes the node's VolumeAttachments (after pod GC removed the pods) and,
 * only when those are gone, creates the replacements on the new nodes. No Kubernetes Event marks
 * either step, so instead of leaving them to the next full pass, the pass that placed the taint
 * polls: the old objects by name (cheap GETs) until kcm deletes them, detaching each at once; then
 * one list of VolumeAttachments per round until the replacements appear, attaching them. It stops
 * when everything is attached elsewhere, after OUT_OF_SERVICE_FOLLOW_SECONDS, or at the deadline.
 */
import { deadNodesOf, followUpOf, isDead, watchOf, type DeadInstanceWatch } from '../../core/attacher/dead-instance.js';
import { attacherTargets, type AttacherView } from '../../core/attacher/targets.js';
import type { KubeVolumeAttachment } from '../../core/kube.js';
import { instanceStateOf } from '../../core/observed.js';
import type { InstanceId } from '../../core/types.js';
import type { PassContext } from '../pass/state.js';
import { poll } from '../pass/poll.js';
import type { Budget } from '../pass/types.js';
import { actOnVolumeAttachments, type VaStep } from './act-on.js';
import type { AttacherDeps } from './deps.js';

/** The longest pause between two looks: kcm's next step is usually a second or two away. */
const POLL_MAX_MS = 2_000;

/** The nodes to follow after the full pass placed (or found) the taint; undefined when there is nothing to follow. */
export function deadInstanceWatch(ctx: PassContext, instanceId: InstanceId, view: AttacherView): DeadInstanceWatch | undefined {
  if (!isDead(instanceStateOf(ctx.observations, instanceId))) return undefined;
  const nodes = deadNodesOf(ctx.desired.nodes.values(), instanceId);
  const watch = watchOf(nodes, attacherTargets(view));
  return watch.volumeAttachments.size === 0 ? undefined : watch;
}

/** The watched objects by name while any is left; then every VolumeAttachment (the replacements' names are not known). */
async function readRound(deps: AttacherDeps, watch: DeadInstanceWatch, left: boolean): Promise<KubeVolumeAttachment[]> {
  if (!left) return deps.cluster.listVolumeAttachments();
  const read = await Promise.all([...watch.volumeAttachments.keys()].map((name) => deps.cluster.readVolumeAttachment(name)));
  return read.filter((va): va is KubeVolumeAttachment => va !== undefined);
}

export async function followDeadInstance(
  deps: AttacherDeps,
  budget: Budget,
  from: { ctx: PassContext; view: AttacherView; instanceId: InstanceId },
): Promise<VaStep[]> {
  const watch = deadInstanceWatch(from.ctx, from.instanceId, from.view);
  if (watch === undefined) return [];
  const until = from.ctx.deadline.waitUntil(deps.settings.outOfServiceFollowMs);
  const steps: VaStep[] = [];
  let oldLeft = true;
  await poll(deps, { until, maxMs: POLL_MAX_MS, lastLook: 'before-until' }, async () => {
    const read = await readRound(deps, watch, oldLeft);
    // PVs, CSINodes and nodes as the full pass read them serve to name each object's volume; acting re-reads them.
    const targets = attacherTargets({ ...from.view, volumeAttachments: read });
    const next = followUpOf(watch, targets);
    oldLeft = targets.some((t) => watch.volumeAttachments.has(t.name));
    const act = [...next.release, ...next.attach];
    if (act.length > 0)
      steps.push(
        await actOnVolumeAttachments(
          deps,
          budget,
          { volumeAttachments: act, detachFrom: watch.nodes, instances: [from.instanceId] },
          false,
        ),
      );
    return next.done;
  });
  deps.log.info('dead instance followed', { instanceId: from.instanceId, nodes: watch.nodes, steps: steps.length });
  return steps;
}
