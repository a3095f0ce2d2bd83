/**
 * Is it safe to detach an attachment nobody needs any more? (DESIGN §6, upstream's reconciler:
 * detach when unmounted, out of service, or not Ready past maxWaitForUnmount; plus EC2's word
 * that the instance is stopped or gone.) A Ready, in-service node's mounted volume always waits,
 * even when EC2 already reports the instance gone: the node turns NotReady within seconds.
 */
import type { DetachTrigger } from './actions.js';
import type { PlanConfig } from './config.js';
import { isMounted } from './nodes.js';
import { instanceGone } from './observed.js';
import type { WaitCode } from './reasons.js';
import type { ActualAttachment, InstanceState, NodeView, UniqueVolumeName } from './types.js';

export type DetachDecision =
  { detach: true; trigger: DetachTrigger; ec2Force: boolean; why: string } | { detach: false; code: WaitCode; why: string };

export interface DetachFacts {
  attachment: ActualAttachment;
  uniqueName: UniqueVolumeName;
  /** The node object, if it exists. */
  node: NodeView | undefined;
  instanceState: InstanceState | 'missing' | undefined;
  /** When the detach was first requested (now when it is requested this pass). */
  requestedAt: number;
  now: number;
  maxWaitForUnmountMs: PlanConfig['maxWaitForUnmountMs'];
}

/**
 * The node view that speaks for this attachment: none when the object is gone or now names a
 * different instance (a node name reused by a replacement), so its volumesInUse say nothing here.
 */
export function nodeOfAttachment(node: NodeView | undefined, attachment: Pick<ActualAttachment, 'instanceId'>): NodeView | undefined {
  return node && (!node.instanceId || node.instanceId === attachment.instanceId) ? node : undefined;
}

function timeoutDecision(facts: DetachFacts, where: string): DetachDecision {
  const { maxWaitForUnmountMs: maxWait, now, requestedAt } = facts;
  if (maxWait === null)
    return { detach: false, code: 'force-detach-disabled', why: `mounted on ${where}; force detach on timeout is disabled` };
  const waited = now - requestedAt;
  if (waited > maxWait) {
    return {
      detach: true,
      trigger: 'unmount-timeout',
      ec2Force: false,
      why: `mounted on ${where} for ${Math.round(waited / 1000)} s since the detach was requested (maxWaitForUnmount ${Math.round(maxWait / 1000)} s)`,
    };
  }
  const left = Math.ceil((maxWait - waited) / 1000);
  return { detach: false, code: 'waiting-for-unmount-timeout', why: `mounted on ${where}; detach when unmounted or in ${left} s` };
}

export function decideDetach(facts: DetachFacts): DetachDecision {
  const { attachment, instanceState } = facts;
  const node = nodeOfAttachment(facts.node, attachment);
  const mounted = node ? isMounted(node.volumesInUse, facts.uniqueName) : attachment.mounted;
  const name = attachment.nodeName;
  if (node && node.ready && !node.outOfService && mounted) {
    return { detach: false, code: 'mounted-on-ready-node', why: `still mounted on Ready node ${name}; waiting for the kubelet to unmount` };
  }
  if (instanceGone(instanceState)) {
    return {
      detach: true,
      trigger: 'instance-terminated',
      ec2Force: true,
      why: `EC2 reports instance ${attachment.instanceId} ${instanceState}`,
    };
  }
  if (instanceState === 'stopped') {
    return { detach: true, trigger: 'instance-stopped', ec2Force: true, why: `EC2 reports instance ${attachment.instanceId} stopped` };
  }
  if (node?.outOfService) return { detach: true, trigger: 'out-of-service', ec2Force: true, why: `node ${name} is tainted out-of-service` };
  if (!mounted) return { detach: true, trigger: 'unmounted', ec2Force: false, why: `not mounted on node ${name}` };
  return timeoutDecision(facts, node ? `not-Ready node ${name}` : `node ${name} whose object is gone (or names another instance)`);
}
