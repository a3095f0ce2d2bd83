/**
 * Attacher mode, after a dead instance's node was tainted out of service: what the EC2 event's pass
 * follows through on instead of leaving it to the next full pass. Upstream's order (KEP-2268,
 * kube-controller-manager): the taint-eviction controller deletes the node's pods at once; pod GC
 * force-deletes those still terminating once the node is NotReady and tainted; the attach/detach
 * controller then deletes their VolumeAttachments without waiting for an unmount; and it creates
 * the replacement pods' VolumeAttachments on their new nodes only after the old ones are gone
 * (Multi-Attach). Pure: the pass reads, this says what the reads mean.
 */
import type { KubeVolumeAttachment } from '../kube.js';
import type { InstanceId, InstanceState, NodeName, NodeView, VolumeId } from '../types.js';
import type { VaTarget } from './targets.js';

/** Our VolumeAttachments on the dead instance's nodes. */
export interface DeadInstanceWatch {
  nodes: NodeName[];
  /** VolumeAttachment name → its volume. */
  volumeAttachments: Map<string, VolumeId>;
}

/** Only a stopped or terminated instance is followed: its node's volumes cannot be in use. */
export function isDead(state: InstanceState | 'missing' | undefined): boolean {
  return state === 'stopped' || state === 'terminated';
}

/** The nodes that name the instance and carry the out-of-service taint now (ours or anyone's). */
export function deadNodesOf(nodes: Iterable<NodeView>, instanceId: InstanceId): NodeName[] {
  return [...nodes].filter((n) => n.outOfService && n.instanceId === instanceId).map((n) => n.name);
}

export function watchOf(deadNodes: readonly NodeName[], targets: readonly VaTarget[]): DeadInstanceWatch {
  const on = new Set(deadNodes);
  const volumeAttachments = new Map(
    targets.flatMap((t) => (on.has(t.nodeName) && t.volumeId !== undefined ? [[t.name, t.volumeId] as const] : [])),
  );
  return { nodes: [...deadNodes], volumeAttachments };
}

export interface FollowUp {
  /** Old objects kcm is deleting that still carry our finalizer: detach now. */
  release: KubeVolumeAttachment[];
  /** Replacement objects (watched volumes, other nodes) not attached yet: attach now. */
  attach: KubeVolumeAttachment[];
  /** Every old object is gone and every watched volume is attached elsewhere. */
  done: boolean;
}

/**
 * `targets`: our objects as read now (the watched ones among them, and any others): a watched one
 * missing is gone; a live one of a watched volume on another node is its replacement.
 */
export function followUpOf(watch: DeadInstanceWatch, targets: readonly VaTarget[]): FollowUp {
  const dead = new Set(watch.nodes);
  const old = targets.filter((t) => watch.volumeAttachments.has(t.name));
  const release = old.filter((t) => t.deleting && t.finalized).map((t) => t.va);
  const wanted = new Set(watch.volumeAttachments.values());
  const elsewhere = targets.filter((t) => !dead.has(t.nodeName) && t.volumeId !== undefined && wanted.has(t.volumeId) && !t.deleting);
  const attach = elsewhere.filter((t) => t.va.status?.attached !== true).map((t) => t.va);
  const attachedVolumes = new Set(elsewhere.filter((t) => t.va.status?.attached === true).map((t) => t.volumeId));
  return { release, attach, done: old.length === 0 && [...wanted].every((id) => attachedVolumes.has(id)) };
}
