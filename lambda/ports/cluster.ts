/**
 * The Kubernetes API as the controller uses it (DESIGN §7), split by role: the reads both modes
 * make, the writes of controller mode (node status, our VolumeAttachments, pod events) and those of
 * attacher mode (kcm's VolumeAttachments' finalizers and status). Each mode's pass is handed only its
 * role's writes; `adapters/kubernetes` implements all three on @kubernetes/client-node.
 */
import type { AttacherView } from '../core/attacher/targets.js';
import type { VaStatusPatch } from '../core/attacher/status.js';
import type {
  AttachedVolume,
  ClusterSnapshot,
  KubeCsiNode,
  KubeNode,
  KubePod,
  KubePv,
  KubePvc,
  KubeVolumeAttachment,
  ObjectMeta,
} from '../core/kube.js';
import type { InstanceId, NodeName, PodRef, UniqueVolumeName, VolumeId } from '../core/types.js';
import type { ClusterWatch } from './cluster-watch.js';

/** A list could not be read completely; a pass that sees this must not detach anything. */
export class IncompleteReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IncompleteReadError';
  }
}

/** What a node says right now: the volumes its kubelet uses, and the volumes its status lists as attached. */
export interface LiveVolumes {
  inUse: UniqueVolumeName[];
  attached: UniqueVolumeName[];
}

/** The objects one pod needs to decide its volumes: the pod, its PVCs and their PVs. */
export interface PodClosure {
  pod?: KubePod;
  pvcs: KubePvc[];
  pvs: KubePv[];
}

export interface VolumeAttachmentRef {
  volumeId: VolumeId;
  nodeName: NodeName;
  /** For PV-backed volumes; inline volumes carry the inline spec instead. */
  pvName?: string;
}

export type VolumeAttachmentStatus =
  /** `detachError`: a detach that failed leaves the volume attached, as the external-attacher reports it. */
  { attached: true; devicePath: string; detachError?: string } | { attached: false; attachError?: string; detachError?: string };

export interface ClusterEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface SetVolumesAttachedOptions {
  /**
   * The list the caller computed `volumes` from (e.g. the node's `volumesAttached` as read at
   * the start of the pass). When given, only the caller's change (base → volumes) is applied
   * to the live list, so concurrent writers that change different entries keep each other's
   * changes. Without it the live list read first is the base (plain replace).
   */
  base?: AttachedVolume[];
}

/** Our finalizer on a PV: `deleting` and `gone` mean the attach must not go ahead. */
export type PvFinalizerOutcome = 'added' | 'present' | 'deleting' | 'gone';
/** Our finalizer and node-id annotation on a VolumeAttachment. */
export type ClaimOutcome = 'claimed' | 'deleting' | 'gone';

/** `deleting`: a status saying `attached: true` was not written, the object is being deleted. */
export type StatusOutcome = 'patched' | 'deleting' | 'gone';

/** What both modes read; the watcher lists and watches through the same reads. */
export interface ClusterReads extends ClusterWatch {
  /** Every page of nodes, pods, PVCs, PVs, VolumeAttachments. Throws `IncompleteReadError` otherwise. */
  readAll(): Promise<ClusterSnapshot>;
  /** One pod with its PVCs and PVs; `pod` undefined when the pod is gone. */
  readPod(namespace: string, name: string): Promise<PodClosure>;
  /** Pods scheduled on a node (field selector spec.nodeName), all pages, with their PVCs and PVs. */
  readPodsOnNode(nodeName: NodeName): Promise<{ pods: KubePod[]; pvcs: KubePvc[]; pvs: KubePv[] }>;
  /**
   * Every node, all pages (a rare read: finding the node(s) whose `spec.providerID` names an EC2
   * instance, which no field selector can do). Throws `IncompleteReadError` rather than a short list.
   */
  listNodes(): Promise<KubeNode[]>;
  /** One node, or undefined when it no longer exists. */
  readNode(name: NodeName): Promise<KubeNode | undefined>;
  /** Live `status.volumesInUse` and `status.volumesAttached` names of one node; undefined when the node is gone. */
  liveVolumes(nodeName: NodeName): Promise<LiveVolumes | undefined>;
  /** Every page of VolumeAttachments, PVs, CSINodes and nodes. Throws `IncompleteReadError` otherwise. */
  readAttacherView(): Promise<AttacherView>;
  /** Every page of VolumeAttachments alone. Throws `IncompleteReadError` otherwise. */
  listVolumeAttachments(): Promise<KubeVolumeAttachment[]>;
  /** One object by name; undefined when it does not exist. */
  readVolumeAttachment(name: string): Promise<KubeVolumeAttachment | undefined>;
  /**
   * The VolumeAttachment kcm makes for this CSI volume handle on this node, read by the name kcm and
   * the kubelet give it (`csi-<sha256(handle + driver + node)>`); undefined when it does not exist (yet).
   */
  readVolumeAttachmentFor(volumeHandle: string, nodeName: NodeName): Promise<KubeVolumeAttachment | undefined>;
  readCsiNode(name: NodeName): Promise<KubeCsiNode | undefined>;
  readPv(name: string): Promise<KubePv | undefined>;
}

/** Controller mode's writes: we are the attach/detach controller. */
export interface ControllerWrites {
  /**
   * Sets `status.volumesAttached` (the whole, atomic list) through nodes/status, guarded by
   * resourceVersion and re-applied on conflict. `node-gone` when the node no longer exists.
   */
  setVolumesAttached(
    nodeName: NodeName,
    volumes: AttachedVolume[],
    options?: SetVolumesAttachedOptions,
  ): Promise<'updated' | 'unchanged' | 'node-gone'>;
  /** Creates or updates `csi-<sha256(handle+driver+node)>` and its status. */
  upsertVolumeAttachment(ref: VolumeAttachmentRef, status: VolumeAttachmentStatus): Promise<void>;
  /** Clears status, removes our finalizer, deletes. No error when it is already gone. */
  deleteVolumeAttachment(ref: VolumeAttachmentRef): Promise<void>;
  /** Records an event on a pod; repeats of the same (pod, reason, message) are aggregated. */
  recordEvent(pod: PodRef, event: ClusterEvent): Promise<void>;
}

/**
 * Attacher mode's writes (external-attacher's): it never creates or deletes a VolumeAttachment and
 * never writes node status.
 */
export interface AttacherWrites {
  /**
   * JSON-patch append, guarded by a test op; a PV being deleted gets no new finalizer. `passRead`:
   * the PV's metadata as this pass read it, patched without a GET if the PV is unchanged since.
   */
  addPvFinalizer(name: string, passRead?: ObjectMeta): Promise<PvFinalizerOutcome>;
  /** Removes our finalizer; no error when it or the PV is already gone. */
  removePvFinalizer(name: string): Promise<void>;
  /** Our finalizer plus `csi.alpha.kubernetes.io/node-id=<instance>` in one guarded patch, before EC2 is called. */
  claimVolumeAttachment(name: string, instanceId: InstanceId, passRead?: ObjectMeta): Promise<ClaimOutcome>;
  /** Removes our finalizer (only after EC2 detached the volume); no error when it or the object is gone. */
  releaseVolumeAttachment(name: string): Promise<void>;
  /**
   * Merge patch of `volumeattachments/status`; `gone` (404) is an answer. One that says
   * `attached: true` is written only while the object is not being deleted (`deleting` otherwise).
   */
  patchVolumeAttachmentStatus(name: string, status: VaStatusPatch): Promise<StatusOutcome>;
  /** An event on the VolumeAttachment, aggregated like pod events. */
  recordVolumeAttachmentEvent(va: { name: string; uid: string }, event: ClusterEvent): Promise<void>;
}

/** The whole API, as one adapter implements it. */
export interface Cluster extends ClusterReads, ControllerWrites, AttacherWrites {}
