/**
 * The desired state (DSW) from plain Kubernetes objects (DESIGN §6): every scheduled,
 * non-terminated pod on a managed node with a valid instance id contributes its EBS volumes.
 * Nothing here throws on bad input: malformed objects become `problems`, unusable pod volumes
 * become `skipped` entries with a reason.
 */
import { compareText } from './compare.js';
import { buildNodeViews, MANAGED_ANNOTATION } from './nodes.js';
import type { ClusterSnapshot, KubePod } from './kube.js';
import { comparePods, isPodTerminated, podKey, podRefOf } from './pods.js';
import { claimLookup, resolvePodVolume, type ClaimLookup } from './pod-volumes.js';
import type { Coded, SkipCode } from './reasons.js';
import {
  pairKey,
  type DesiredAttachment,
  type DesiredState,
  type NodeName,
  type NodeView,
  type PodRef,
  type SkippedVolume,
} from './types.js';
import { uniqueNameFor } from './volume-id.js';
import { ebsVolumeId, pvLookup, volumeOfVolumeAttachment } from './volume-sources.js';

export interface BuildOptions {
  /** False when any list was missing or partial: the plan then detaches nothing. Default true. */
  complete?: boolean;
  scope?: DesiredState['scope'];
}

/** Why a pod's node cannot take attachments, or undefined when it can. */
function nodeProblem(nodeName: NodeName, node: NodeView | undefined): Coded<SkipCode> | undefined {
  if (!node) return { code: 'node-not-found', text: `node ${nodeName} not found` };
  if (!node.managed)
    return {
      code: 'node-unmanaged',
      text: `node ${nodeName} is not managed by the attach/detach controller (no ${MANAGED_ANNOTATION} annotation)`,
    };
  if (!node.instanceId) return { code: 'node-no-instance', text: `node ${nodeName} has no valid EC2 instance id in spec.providerID` };
  return undefined;
}

class Collector {
  readonly attachments = new Map<string, DesiredAttachment>();
  readonly skipped: SkippedVolume[] = [];
  readonly problems = new Set<string>();

  add(entry: Omit<DesiredAttachment, 'pods'>, pod: PodRef): void {
    const key = `${entry.volumeId}\u0000${entry.nodeName}`;
    const existing = this.attachments.get(key);
    if (!existing) {
      this.attachments.set(key, { ...entry, pods: [pod] });
      return;
    }
    if (!existing.pods.some((p) => podKey(p) === podKey(pod))) existing.pods.push(pod);
    // Two references to one volume: exclusive if either says so, every access mode kept.
    existing.multiAttach &&= entry.multiAttach;
    existing.accessModes = [...new Set([...existing.accessModes, ...entry.accessModes])];
  }

  sorted(): DesiredAttachment[] {
    const list = [...this.attachments.values()];
    for (const attachment of list) attachment.pods.sort(comparePods);
    return list.sort((a, b) => compareText(a.volumeId, b.volumeId) || compareText(a.nodeName, b.nodeName));
  }
}

function addPod(pod: KubePod, nodes: Map<NodeName, NodeView>, lookup: ClaimLookup, out: Collector): void {
  const ref = podRefOf(pod);
  if (!ref) {
    out.problems.add('a pod object has no metadata.name or metadata.namespace');
    return;
  }
  const nodeName = pod.spec?.nodeName;
  if (!nodeName || isPodTerminated(pod)) return;
  const node = nodes.get(nodeName);
  const unusableNode = nodeProblem(nodeName, node);
  for (const volume of pod.spec?.volumes ?? []) {
    const resolved = resolvePodVolume(ref, volume, lookup);
    if (resolved.kind === 'ignored') continue;
    if (resolved.kind === 'skipped') {
      const { code, reason, event } = resolved;
      out.skipped.push({ pod: ref, podVolumeName: volume.name, nodeName, code, reason, ...(event === undefined ? {} : { event }) });
      if (resolved.problem) out.problems.add(resolved.problem);
      continue;
    }
    if (unusableNode) {
      const reason = `pod ${podKey(ref)} is on ${unusableNode.text}`;
      out.skipped.push({ pod: ref, podVolumeName: volume.name, nodeName, volumeId: resolved.volumeId, code: unusableNode.code, reason });
      continue;
    }
    const { volumeId, accessModes, multiAttach, source } = resolved;
    out.add(
      { volumeId, uniqueName: uniqueNameFor(volumeId), nodeName, instanceId: node!.instanceId!, accessModes, multiAttach, source },
      ref,
    );
  }
}

/** The (volume, node) pairs the EBS VolumeAttachments read name (attached or not): the cluster's word that a volume belongs on a node. */
function volumeAttachmentPairs(snapshot: Pick<ClusterSnapshot, 'pvs' | 'volumeAttachments'>): ReadonlySet<string> {
  const pvNamed = pvLookup(snapshot.pvs);
  const pairs = new Set<string>();
  for (const va of snapshot.volumeAttachments) {
    const volumeId = ebsVolumeId(volumeOfVolumeAttachment(va, pvNamed));
    if (volumeId !== undefined) pairs.add(pairKey(volumeId, va.spec.nodeName));
  }
  return pairs;
}

export function buildDesiredState(snapshot: ClusterSnapshot, options: BuildOptions = {}): DesiredState {
  const { nodes, problems } = buildNodeViews(snapshot.nodes);
  const lookup = claimLookup(snapshot.pvcs, snapshot.pvs);
  const out = new Collector();
  for (const pod of snapshot.pods) addPod(pod, nodes, lookup, out);
  const state: DesiredState = {
    attachments: out.sorted(),
    nodes,
    skipped: out.skipped,
    problems: [...problems, ...out.problems],
    complete: options.complete ?? true,
    decidedBy: { kind: 'pods', volumeAttachmentPairs: volumeAttachmentPairs(snapshot) },
  };
  if (options.scope) state.scope = options.scope;
  return state;
}
