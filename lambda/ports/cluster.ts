/**
 * The Kubernetes API as the controller uses it (DESIGN §7). Implemented by
 * `adapters/kubernetes` on @kubernetes/client-node.
 */
import type { AttachedVolume, ClusterSnapshot, KubeNode, KubePod, KubePv, KubePvc } from '../core/kube.js';
import type { NodeName, PodRef, UniqueVolumeName, VolumeId } from '../core/types.js';

/** A list could not be read completely; a pass that sees this must not detach anything. */
export class IncompleteReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IncompleteReadError';
  }
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

export interface Cluster {
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
  /** Live `status.volumesInUse` of one node; undefined when the node is gone. */
  volumesInUse(nodeName: NodeName): Promise<UniqueVolumeName[] | undefined>;
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
