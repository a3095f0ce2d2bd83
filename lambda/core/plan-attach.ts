/**
 * The attach half of a plan: every desired (volume, node) that EC2 does not already serve becomes
 * an attach, unless the volume is exclusive and attached, attaching, uncertain or being operated
 * on elsewhere: then the pods get upstream's Multi-Attach error and nothing is attached (invariant 1).
 */
import type { AttachAction, MultiAttachConflictAction } from './actions.js';
import { FAILED_ATTACH_VOLUME, multiAttachMessage, volumeSpecName } from './events.js';
import { inScope } from './guards.js';
import { instanceGone, instanceStateOf, ec2ShowsAttachment, observedInstances } from './observed.js';
import { blockedReason, claim, defer, type PlanContext } from './plan-context.js';
import { comparePods, podKey } from './pods.js';
import type { DesiredAttachment, NodeName, PodRef, VolumeRecord } from './types.js';

export interface AttachPlan {
  attaches: AttachAction[];
  conflicts: MultiAttachConflictAction[];
}

/** Nodes (or bare instance ids EC2 shows) that hold or are getting the volume, other than `target`. */
function holdersElsewhere(ctx: PlanContext, record: VolumeRecord | undefined, target: DesiredAttachment): string[] {
  const holders = new Set<string>();
  const known = new Set<string>([target.instanceId]);
  for (const attachment of Object.values(record?.attachments ?? {})) {
    known.add(attachment.instanceId);
    if (attachment.nodeName !== target.nodeName) holders.add(attachment.nodeName);
  }
  for (const op of Object.values(record?.operations ?? {})) {
    if (op.nodeName !== target.nodeName) holders.add(op.nodeName);
  }
  for (const node of ctx.plannedAttaches.get(target.volumeId) ?? []) holders.add(node);
  for (const instanceId of observedInstances(ctx.observations.volumes?.get(target.volumeId))) {
    if (!known.has(instanceId)) holders.add(nodeNameOfInstance(ctx, instanceId) ?? `instance ${instanceId}`);
  }
  return [...holders].sort();
}

function nodeNameOfInstance(ctx: PlanContext, instanceId: string): NodeName | undefined {
  return [...ctx.desired.nodes.values()].find((node) => node.instanceId === instanceId)?.name;
}

const NO_POD: PodRef = { namespace: '', name: '', uid: '' };

function conflict(ctx: PlanContext, target: DesiredAttachment, attachedTo: string[]): MultiAttachConflictAction {
  const elsewhere = ctx.wanted.get(target.volumeId)!; // holds target itself
  const podsElsewhere = new Map<string, PodRef>();
  for (const node of attachedTo) for (const pod of elsewhere.get(node)?.pods ?? []) podsElsewhere.set(podKey(pod), pod);
  const others = [...podsElsewhere.values()].sort(comparePods);
  const podEvents = target.pods.map((pod) => ({ pod, message: multiAttachMessage(volumeSpecName(target), pod, others) }));
  return {
    kind: 'multiAttachConflict',
    volumeId: target.volumeId,
    uniqueName: target.uniqueName,
    nodeName: target.nodeName,
    attachedTo,
    pods: target.pods,
    // No pods where kcm decides (attacher mode): upstream's message for a volume attached elsewhere.
    event: {
      type: 'Warning',
      reason: FAILED_ATTACH_VOLUME,
      message: podEvents[0]?.message ?? multiAttachMessage(volumeSpecName(target), NO_POD, []),
    },
    podEvents,
    reason: `exclusive volume is attached or being attached to ${attachedTo.join(', ')}`,
  };
}

/** Why this desired attachment needs an attach, or undefined when EC2 already serves it (or will). */
function attachNeed(ctx: PlanContext, record: VolumeRecord | undefined, target: DesiredAttachment): string | undefined {
  const own = record?.attachments[target.nodeName];
  const pods = target.pods.map(podKey).join(', ');
  if (!own) return `needed by pod(s) ${pods} on node ${target.nodeName}`;
  if (!ec2ShowsAttachment(own, ctx.observations.volumes?.get(target.volumeId)))
    return `EC2 no longer shows it attached, and pod(s) ${pods} need it`;
  if (own.instanceId !== target.instanceId) {
    defer(ctx, target.volumeId, target.nodeName, 'attach', {
      code: 'previous-instance',
      text: `attached to ${own.instanceId}, a previous instance of node ${target.nodeName}: detached first`,
    });
    return undefined;
  }
  if (own.state === 'uncertain') return 'attachment is uncertain: attach again (already attached to this instance counts as success)';
  if (own.state === 'detaching') return 'desired again while detaching: attach again once EC2 lets go';
  return undefined;
}

function planOne(ctx: PlanContext, target: DesiredAttachment, out: AttachPlan): void {
  const { volumeId, nodeName } = target;
  if (!inScope(ctx.desired, volumeId, nodeName)) return;
  const record = ctx.actual.get(volumeId);
  const need = attachNeed(ctx, record, target);
  if (!need) return;
  const instanceState = instanceStateOf(ctx.observations, target.instanceId);
  if (instanceGone(instanceState) || instanceState === 'shutting-down') {
    defer(ctx, volumeId, nodeName, 'attach', {
      code: 'instance-not-running',
      text: `attach waits: EC2 reports instance ${target.instanceId} ${instanceState}`,
    });
    return;
  }
  const exclusive = !target.multiAttach || (record !== undefined && !record.multiAttach);
  const holders = exclusive ? holdersElsewhere(ctx, record, target) : [];
  if (holders.length > 0) {
    out.conflicts.push(conflict(ctx, target, holders));
    return;
  }
  const blocked = blockedReason(ctx, record, volumeId, nodeName, 'attach', exclusive);
  if (blocked) {
    defer(ctx, volumeId, nodeName, 'attach', { code: blocked.code, text: `attach waits: ${blocked.text}` });
    return;
  }
  claim(ctx, volumeId, nodeName, exclusive);
  ctx.plannedAttaches.set(volumeId, [...(ctx.plannedAttaches.get(volumeId) ?? []), nodeName]);
  out.attaches.push({
    kind: 'attach',
    volumeId,
    uniqueName: target.uniqueName,
    nodeName,
    instanceId: target.instanceId,
    multiAttach: !exclusive,
    pods: target.pods,
    reason: need,
  });
}

export function planAttaches(ctx: PlanContext): AttachPlan {
  const out: AttachPlan = { attaches: [], conflicts: [] };
  for (const target of ctx.desired.attachments) planOne(ctx, target, out);
  return out;
}
