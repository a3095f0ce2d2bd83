/**
 * What one step of the simulated kcm works with: the objects as its informers see them at the
 * step's start, its memory (actual state, operations, events) and the writes it makes.
 */
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import type { KubeNode, KubeVolumeAttachment } from '../../lambda/core/kube.js';
import type { KubeSandbox } from '../kube/index.js';
import type { ActualState, VolumeSpec } from './actual.js';
import type { VolumeToAttach } from './desired.js';
import type { PodEvents } from './events.js';
import type { Operations } from './operations.js';

/** csiTimeout in pkg/volume/csi: how long the CSI attacher waits for a VA to be attached or gone. */
export const CSI_WAIT_MS = 2 * 60_000;

export type KcmKube = Pick<KubeSandbox, 'list' | 'get' | 'components' | 'kubelet'>;

/** A VA as read here: the optional `errorCode` (KEP-4876) on the errors. */
export type Va = KubeVolumeAttachment & {
  status?: {
    attachError?: { message?: string; errorCode?: number } | null;
    detachError?: { message?: string; errorCode?: number } | null;
  } | null;
};

export interface View {
  nodes: Map<string, KubeNode>;
  vas: Map<string, Va>;
  desired: Map<string, VolumeToAttach>;
}

/** What a step did, for tests and the demo's narration. */
export interface KcmStepReport {
  created: string[];
  deleted: string[];
  attached: string[];
  detached: string[];
  failed: { va: string; kind: 'attach' | 'detach'; error: string }[];
  nodeStatusWrites: number;
  /** Pods deleted by taint eviction (`namespace/name`). */
  evicted: string[];
  /** Terminating pods pod GC force-deleted on out-of-service nodes. */
  collected: string[];
}

export interface KcmContext {
  kube: KcmKube;
  now: number;
  actual: ActualState;
  operations: Operations;
  events: PodEvents;
  /** (volume, node) keys whose Multi-Attach error was reported, until they leave the desired state. */
  multiAttachReported: Set<string>;
  /** The last volumesInUse seen per node (ASW's MountedByNode), kept when the node object goes. */
  inUse: Map<string, Set<string>>;
  report: KcmStepReport;
}

export function vaNameOf(volume: VolumeSpec): string {
  return volumeAttachmentName(volume.volumeHandle, volume.nodeName);
}

/** The node status updater: `volumesAttached` (an atomic list) as the actual state reports it. */
export function writeNodeStatus(ctx: KcmContext, view: View, nodeName: string): void {
  const node = view.nodes.get(nodeName);
  if (!node) return;
  const next = ctx.actual.reportedOn(nodeName);
  const current = (node.status?.volumesAttached ?? []).map((v) => ({ name: v.name, devicePath: v.devicePath ?? '' }));
  if (JSON.stringify(current) === JSON.stringify(next)) return;
  const written = ctx.kube.components.update(
    'Node',
    undefined,
    nodeName,
    (n) => ({ ...n, status: { ...(n.status as object), volumesAttached: next } }),
    'status',
  ) as KubeNode;
  view.nodes.set(nodeName, written);
  ctx.report.nodeStatusWrites += 1;
}
