/**
 * What a plan asks the executor to do. Every action carries a human-readable `reason`
 * (shown by `plan --dry-run` and logged); the executor, not the core, talks to the world.
 */
import type { MASS_DETACH_GUARD, WaitCode } from './reasons.js';
import type { InstanceId, NodeName, Operation, OperationKind, PodRef, UniqueVolumeName, VolumeId } from './types.js';

/** Why a detach is allowed (DESIGN §6). Anything other than `unmounted` detaches a volume the kubelet may still hold. */
export type DetachTrigger =
  | 'unmounted' // not desired and not in the node's volumesInUse
  | 'out-of-service' // node tainted node.kubernetes.io/out-of-service
  | 'unmount-timeout' // node not Ready (or gone) for maxWaitForUnmount since the detach was requested
  | 'instance-stopped' // EC2: no OS can be writing
  | 'instance-terminated'
  | 'stuck-attach' // attaching for more than 90 s: detach and retry from scratch
  | 'released'; // attacher mode: kcm is deleting the VolumeAttachment (it already waited for the unmount)

interface ActionBase {
  volumeId: VolumeId;
  uniqueName: UniqueVolumeName;
  nodeName: NodeName;
  reason: string;
}

export interface AttachAction extends ActionBase {
  kind: 'attach';
  instanceId: InstanceId;
  multiAttach: boolean;
  pods: PodRef[];
}

/** Remove the volume from the node's reported `volumesAttached` before a detach, forced or not. */
export interface UnreportAction extends ActionBase {
  kind: 'unreport';
}

export interface DetachAction extends ActionBase {
  kind: 'detach';
  instanceId: InstanceId;
  trigger: DetachTrigger;
  /** DetachVolume's Force flag: set only when the instance is gone or the node is out of service. */
  ec2Force: boolean;
  /** The detach must not run unless the matching `unreport` succeeded in this pass. */
  requiresUnreport: boolean;
}

/** An operation whose lease expired: ask EC2 what really happened, then record it. */
export interface ResolveAction extends ActionBase {
  kind: 'resolve';
  operation: Operation;
}

/** An exclusive volume desired on a node while attached elsewhere: warn the pods, attach nothing. */
export interface MultiAttachConflictAction extends ActionBase {
  kind: 'multiAttachConflict';
  attachedTo: NodeName[];
  pods: PodRef[];
  event: { type: 'Warning'; reason: 'FailedAttachVolume'; message: string };
  /**
   * Upstream words the event per scheduled pod (pods in other namespaces are counted, not named):
   * one entry per pod in `pods`. `event.message` is the first pod's message.
   */
  podEvents?: { pod: PodRef; message: string }[];
}

export type Action = AttachAction | UnreportAction | DetachAction | ResolveAction | MultiAttachConflictAction;

/** A detach the mass-detach guard kept back this pass: reported, never silently dropped. */
export interface HeldBack {
  action: DetachAction;
  code: typeof MASS_DETACH_GUARD;
  reason: string;
}

/** A (volume, node) the plan left alone this pass, and why (for dry runs and logs). */
export interface Deferred {
  volumeId: VolumeId;
  nodeName: NodeName;
  /** The operation that waits: an attach the pods need, or a detach of an attachment nobody needs (or a stuck one). */
  operation: OperationKind;
  code: WaitCode;
  reason: string;
}

/**
 * `ActualAttachment.detachRequestedAt` the caller must persist: a time when a detach was first
 * requested this pass (the unmount timeout counts from it), `null` when the volume is desired
 * again and the timer must be cleared (upstream's ResetDetachRequestTime).
 */
export interface DetachRequestUpdate {
  volumeId: VolumeId;
  nodeName: NodeName;
  detachRequestedAt: number | null;
}

export interface Plan {
  /** In execution order: resolves, then unreport/detach pairs, then attaches, then conflicts. */
  actions: Action[];
  heldBack: HeldBack[];
  /** Always set by `plan()`; optional so hand-built plans stay valid. */
  deferred?: Deferred[];
  detachRequests?: DetachRequestUpdate[];
  /** Guarded detaches one pass (and one mass-detach window) may start; absent when the guard does not apply. */
  massDetachLimit?: number;
}
