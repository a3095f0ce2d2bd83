/**
 * Controller mode's side of a pass: we are the attach/detach controller, so the node's
 * `volumesAttached`, our own VolumeAttachments and the pods' events follow every change (DESIGN §6,
 * §7). A detach goes ahead only once this pass took the volume off the node's reported list, and
 * (non-forced) only while a live read of the node still shows it unmounted and not listed again.
 */
import type { AttachAction, DetachAction, MultiAttachConflictAction } from '../../core/actions.js';
import { nodeOfAttachment } from '../../core/detach-decision.js';
import { attachFailedEvent, attachSucceededEvent, volumeSpecName } from '../../core/events.js';
import type { ClusterSnapshot, KubePv } from '../../core/kube.js';
import { pairKey, type NodeName, type VolumeEvent, type VolumeId } from '../../core/types.js';
import { pvNamesByVolume } from '../../core/volume-sources.js';
import type { ModeFor, PassContext, PassMode, PassState } from '../pass/state.js';
import { bestEffort, desiredAttachment } from '../pass/context.js';
import type { ControllerDeps } from './deps.js';
import { NodeStatusUpdater } from './node-status.js';
import type { ControllerSide } from './side.js';
import { reportSkippedVolumes } from './skipped-events.js';
import { executeUnreports } from './unreport.js';
import { reportAttachError, reportVolumeAttachments, syncVolumeAttachment } from './volume-attachments.js';

export interface ControllerInputs {
  /** The PVs the pass read: VolumeAttachments name them, events use their names. */
  pvs: readonly KubePv[];
  /** A full pass's read of the cluster: every VolumeAttachment listed, so objects out of line are found. */
  listed?: ClusterSnapshot;
}

/** The name the user wrote, as upstream's events name it: the PV, or the pod's inline volume; the EBS id when neither is known. */
function specNameOf(ctx: PassContext, side: ControllerSide, volumeId: VolumeId, nodeName: NodeName): string {
  const desired = desiredAttachment(ctx, volumeId, nodeName);
  return desired ? volumeSpecName(desired) : (side.pvNames.get(volumeId) ?? volumeId);
}

async function tellPods(ctx: PassContext, side: ControllerSide, action: AttachAction, event: VolumeEvent): Promise<void> {
  for (const pod of action.pods) {
    await bestEffort(ctx, `event ${event.reason} on ${pod.namespace}/${pod.name}`, () => side.cluster.recordEvent(pod, event));
  }
}

/**
 * True, or why the detach must wait. Forced detaches do not look at volumesInUse: the node cannot be trusted to answer.
 * A node object already gone when the pass read it was judged by the last word on record; while it
 * stays gone no kubelet can list, so nothing newer can come (waiting would leak the attachment).
 */
async function unusedRightNow(ctx: PassContext, side: ControllerSide, action: DetachAction): Promise<true | string> {
  const unmounted = action.trigger === 'unmounted';
  const unreported = side.nodeStatus.wasUnreported(action.volumeId, action.nodeName);
  if (!unmounted && !unreported) return true;
  try {
    const live = await side.cluster.liveVolumes(action.nodeName);
    if (live === undefined) {
      const judgedWithoutNode = nodeOfAttachment(ctx.desired.nodes.get(action.nodeName), action) === undefined;
      return !unmounted || judgedWithoutNode || 'the node disappeared before the detach; the next pass decides again';
    }
    if (unreported && live.attached.includes(action.uniqueName)) return 'listed on the node again since this pass unreported it';
    if (unmounted && live.inUse.includes(action.uniqueName)) return 'mounted again since the pass read the node';
    return true;
  } catch (error) {
    // A forced detach does not wait on a node that cannot answer (DESIGN §6); an unmounted one does.
    return unmounted ? `could not re-check volumesInUse: ${String(error)}` : true;
  }
}

/** Upstream words the Multi-Attach message per pod (pods of other namespaces are counted, not named). */
async function tellConflict(ctx: PassContext, side: ControllerSide, action: MultiAttachConflictAction): Promise<void> {
  const perPod = action.podEvents ?? action.pods.map((pod) => ({ pod, message: action.event.message }));
  for (const { pod, message } of perPod) {
    const event = { ...action.event, message };
    await bestEffort(ctx, `Multi-Attach event on ${pod.namespace}/${pod.name}`, () => side.cluster.recordEvent(pod, event));
  }
}

function controllerSide(deps: ControllerDeps, pass: PassState, inputs: ControllerInputs): ControllerSide {
  return {
    cluster: deps.cluster,
    nodeStatus: new NodeStatusUpdater(pass, deps.cluster, pass.deadline.leaseMs(deps.settings.plan)),
    touched: new Set(),
    pvNames: pvNamesByVolume(inputs.pvs),
    ...(inputs.listed === undefined ? {} : { listed: inputs.listed }),
  };
}

function controllerPass(side: ControllerSide): PassMode {
  return {
    beforeAttach: () => Promise.resolve(undefined),
    attached: async (ctx, action) => {
      await syncVolumeAttachment(ctx, side, action.volumeId, action.nodeName);
      await tellPods(ctx, side, action, attachSucceededEvent(specNameOf(ctx, side, action.volumeId, action.nodeName)));
    },
    attachFailed: async (ctx, action, failure) => {
      await reportAttachError(ctx, side, action.volumeId, action.nodeName, failure.message);
      await tellPods(ctx, side, action, attachFailedEvent(specNameOf(ctx, side, action.volumeId, action.nodeName), failure.message));
    },
    beforeDetach: (_ctx, action) =>
      action.requiresUnreport && !side.nodeStatus.wasUnreported(action.volumeId, action.nodeName)
        ? "not removed from the node's reported list: detaching now could pull a volume the kubelet uses"
        : undefined,
    confirmDetach: (ctx, action) => unusedRightNow(ctx, side, action),
    detached: (ctx, action) => syncVolumeAttachment(ctx, side, action.volumeId, action.nodeName),
    // A detach that failed stays recorded and backs off; the node still lists the volume only if it is attached.
    detachFailed: () => Promise.resolve(),
    settled: (ctx, volumeId, nodeName) => syncVolumeAttachment(ctx, side, volumeId, nodeName),
    changed: (volumeId, nodeName) => void side.touched.add(pairKey(volumeId, nodeName)),
    unreport: (ctx, actions) => executeUnreports(ctx, side.nodeStatus, actions),
    conflict: (ctx, action) => tellConflict(ctx, side, action),
    afterExecute: async (ctx) => {
      await side.nodeStatus.reportAll();
      await reportSkippedVolumes(ctx, side);
      // Only a complete read says which objects are unwanted: an unreadable cluster is no evidence.
      if (ctx.desired.complete) await reportVolumeAttachments(ctx, side);
    },
  };
}

/** Controller mode for one pass: its side is made once the pass's shared state exists. */
export function controllerMode(deps: ControllerDeps, inputs: ControllerInputs): ModeFor {
  return (pass) => controllerPass(controllerSide(deps, pass, inputs));
}
