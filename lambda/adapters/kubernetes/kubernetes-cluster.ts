/**
 * The `Cluster` port on @kubernetes/client-node: composes the reads, the node status
 * writer, VolumeAttachments and events. Built once per cold start from `KubeClients`.
 */
import type { AttacherView } from '../../core/attacher/targets.js';
import type { VaStatusPatch } from '../../core/attacher/status.js';
import type { AttachedVolume, ClusterSnapshot, KubeCsiNode, KubeNode, KubePv, KubeVolumeAttachment, ObjectMeta } from '../../core/kube.js';
import type { InstanceId, NodeName, PodRef } from '../../core/types.js';
import type {
  ClaimOutcome,
  StatusOutcome,
  Cluster,
  PvFinalizerOutcome,
  ClusterEvent,
  LiveVolumes,
  PodClosure,
  SetVolumesAttachedOptions,
  VolumeAttachmentRef,
  VolumeAttachmentStatus,
} from '../../ports/cluster.js';
import type { ClusterWatch, WatchedKind, WatchOptions, WatchSignal, WatchStart, WatchStream } from '../../ports/cluster-watch.js';
import type { Clock } from '../../clock.js';
import type { KubeClients } from './clients.js';
import { listVolumeAttachments, readAttacherView, readCsiNode, readPv, readVolumeAttachment } from './attacher-reads.js';
import {
  addPvFinalizer,
  claimVolumeAttachment,
  patchVolumeAttachmentStatus,
  releaseVolumeAttachment,
  removePvFinalizer,
  type AttacherWriter,
} from './attacher-writes.js';
import { DEFAULT_EVENT_COMPONENT, recordEvent, recordVolumeAttachmentEvent, type EventWriter } from './events.js';
import { setVolumesAttached, type NodeStatusResult } from './node-status.js';
import { DEFAULT_PAGING, type PagingOptions } from './paged-list.js';
import { volumeAttachmentName } from './volume-attachment-name.js';
import { clusterWatch } from './watch.js';
import { listNodes, readNodeObject, readPodClosure, readPodsOnNode, readSnapshot } from './reads.js';
import { deleteVolumeAttachment, upsertVolumeAttachment, type VolumeAttachmentWriter } from './volume-attachments.js';

export interface KubernetesClusterOptions {
  paging?: Partial<PagingOptions>;
  /** Re-reads after a 409 on a guarded write before giving up. */
  maxConflictRetries?: number;
  /** Events' `source.component`. */
  component?: string;
  /** Events' `source.host` / `reportingInstance`. */
  instance?: string;
}

const DEFAULT_MAX_CONFLICT_RETRIES = 5;

export class KubernetesCluster implements Cluster {
  private readonly paging: PagingOptions;
  private readonly attachments: VolumeAttachmentWriter;
  private readonly events: EventWriter;
  private readonly writer: AttacherWriter;
  private readonly maxConflictRetries: number;
  private readonly watching: ClusterWatch;

  constructor(
    private readonly clients: Pick<KubeClients, 'core' | 'storage' | 'getJson' | 'kubeConfig'>,
    clock: Pick<Clock, 'now'>,
    options: KubernetesClusterOptions = {},
  ) {
    this.paging = { ...DEFAULT_PAGING, ...options.paging };
    this.watching = clusterWatch(clients.kubeConfig, clients, this.paging);
    this.maxConflictRetries = options.maxConflictRetries ?? DEFAULT_MAX_CONFLICT_RETRIES;
    const now = () => new Date(clock.now());
    this.attachments = { storage: clients.storage, now, maxConflictRetries: this.maxConflictRetries };
    this.writer = { core: clients.core, storage: clients.storage, maxConflictRetries: this.maxConflictRetries };
    this.events = {
      core: clients.core,
      now,
      component: options.component ?? DEFAULT_EVENT_COMPONENT,
      instance: options.instance,
      maxConflictRetries: this.maxConflictRetries,
    };
  }

  readAll(): Promise<ClusterSnapshot> {
    return readSnapshot(this.clients, this.paging);
  }

  listToWatch(kind: WatchedKind): Promise<WatchStart> {
    return this.watching.listToWatch(kind);
  }

  watch(kind: WatchedKind, resourceVersion: string, listener: (signal: WatchSignal) => void, options: WatchOptions): Promise<WatchStream> {
    return this.watching.watch(kind, resourceVersion, listener, options);
  }

  readPod(namespace: string, name: string): Promise<PodClosure> {
    return readPodClosure(this.clients, namespace, name);
  }

  readPodsOnNode(nodeName: NodeName) {
    return readPodsOnNode(this.clients, nodeName, this.paging);
  }

  listNodes(): Promise<KubeNode[]> {
    return listNodes(this.clients, this.paging);
  }

  readNode(name: NodeName): Promise<KubeNode | undefined> {
    return readNodeObject(this.clients, name);
  }

  async liveVolumes(nodeName: NodeName): Promise<LiveVolumes | undefined> {
    const node = await readNodeObject(this.clients, nodeName);
    return node && { inUse: node.status?.volumesInUse ?? [], attached: (node.status?.volumesAttached ?? []).map((v) => v.name) };
  }

  setVolumesAttached(nodeName: NodeName, volumes: AttachedVolume[], options: SetVolumesAttachedOptions = {}): Promise<NodeStatusResult> {
    return setVolumesAttached(this.clients.core, nodeName, volumes, { ...options, maxConflictRetries: this.maxConflictRetries });
  }

  upsertVolumeAttachment(ref: VolumeAttachmentRef, status: VolumeAttachmentStatus): Promise<void> {
    return upsertVolumeAttachment(this.attachments, ref, status);
  }

  deleteVolumeAttachment(ref: VolumeAttachmentRef): Promise<void> {
    return deleteVolumeAttachment(this.attachments, ref);
  }

  recordEvent(pod: PodRef, event: ClusterEvent): Promise<void> {
    return recordEvent(this.events, pod, event);
  }

  readAttacherView(): Promise<AttacherView> {
    return readAttacherView(this.clients, this.paging);
  }

  listVolumeAttachments(): Promise<KubeVolumeAttachment[]> {
    return listVolumeAttachments(this.clients, this.paging);
  }

  readVolumeAttachment(name: string): Promise<KubeVolumeAttachment | undefined> {
    return readVolumeAttachment(this.clients, name);
  }

  readVolumeAttachmentFor(volumeHandle: string, nodeName: NodeName): Promise<KubeVolumeAttachment | undefined> {
    return readVolumeAttachment(this.clients, volumeAttachmentName(volumeHandle, nodeName));
  }

  readCsiNode(name: NodeName): Promise<KubeCsiNode | undefined> {
    return readCsiNode(this.clients, name);
  }

  readPv(name: string): Promise<KubePv | undefined> {
    return readPv(this.clients, name);
  }

  addPvFinalizer(name: string, passRead?: ObjectMeta): Promise<PvFinalizerOutcome> {
    return addPvFinalizer(this.writer, name, passRead);
  }

  removePvFinalizer(name: string): Promise<void> {
    return removePvFinalizer(this.writer, name);
  }

  claimVolumeAttachment(name: string, instanceId: InstanceId, passRead?: ObjectMeta): Promise<ClaimOutcome> {
    return claimVolumeAttachment(this.writer, name, instanceId, passRead);
  }

  releaseVolumeAttachment(name: string): Promise<void> {
    return releaseVolumeAttachment(this.writer, name);
  }

  patchVolumeAttachmentStatus(name: string, status: VaStatusPatch): Promise<StatusOutcome> {
    return patchVolumeAttachmentStatus(this.writer, name, status);
  }

  recordVolumeAttachmentEvent(va: { name: string; uid: string }, event: ClusterEvent): Promise<void> {
    return recordVolumeAttachmentEvent(this.events, va, event);
  }
}
