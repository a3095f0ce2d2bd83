/**
 * Which attachments EC2 shows may enter the actual state (verification.ts states the rule), indexed
 * once per pass: a verification asks about every volume it described, and walking every node's
 * status for each of them cost volumes × nodes × names (35–61 s of a 1,000-node sync pass).
 */
import { type DesiredState, type InstanceId, type NodeName, pairOf, type VolumeId } from './types.js';
import { volumeOfNodeStatusName } from './volume-sources.js';

export interface AdoptionIndex {
  /** The nodes whose attachment of `volumeId` EC2 may add to its record, by instance. */
  adoptable(volumeId: VolumeId): ReadonlyMap<InstanceId, NodeName>;
  /** Does the cluster use or report `volumeId` at all (a volume it knows nothing of is never taken over)? */
  knows(volumeId: VolumeId): boolean;
}

type Desired = Pick<DesiredState, 'nodes' | 'attachments' | 'decidedBy'>;

const NONE: ReadonlyMap<InstanceId, NodeName> = new Map();

export function adoptionIndex(desired: Desired): AdoptionIndex {
  const { decidedBy } = desired;
  const reported = nodeStatusNames(desired);
  const known = new Set<VolumeId>([...desired.attachments.map((a) => a.volumeId), ...reported.keys()]);
  if (decidedBy.kind === 'kcm') {
    for (const key of decidedBy.released) known.add(pairOf(key).volumeId);
    const everyNode = nodesByInstance(desired);
    return { adoptable: () => everyNode, knows: (volumeId) => known.has(volumeId) };
  }
  const adoptable = new Map<VolumeId, Map<InstanceId, NodeName>>();
  const add = (volumeId: VolumeId, nodeName: NodeName) => {
    const instanceId = desired.nodes.get(nodeName)?.instanceId;
    if (instanceId === undefined) return;
    const nodes = adoptable.get(volumeId) ?? new Map<InstanceId, NodeName>();
    adoptable.set(volumeId, nodes.set(instanceId, nodeName));
  };
  for (const [volumeId, nodeNames] of reported) for (const nodeName of nodeNames) add(volumeId, nodeName);
  for (const key of decidedBy.volumeAttachmentPairs ?? []) {
    const { volumeId, nodeName } = pairOf(key);
    add(volumeId, nodeName);
  }
  return { adoptable: (volumeId) => adoptable.get(volumeId) ?? NONE, knows: (volumeId) => known.has(volumeId) };
}

/** Every node's instance, and in attacher mode the instances of released nodes that are gone. */
export function nodesByInstance(desired: Pick<DesiredState, 'nodes' | 'decidedBy'>): Map<InstanceId, NodeName> {
  const map = new Map<InstanceId, NodeName>(desired.decidedBy.kind === 'kcm' ? desired.decidedBy.releasedInstances : undefined);
  for (const view of desired.nodes.values()) if (view.instanceId !== undefined) map.set(view.instanceId, view.name);
  return map;
}

/** The volumes nodes' statuses name (`volumesAttached` or `volumesInUse`), and the nodes naming each. */
function nodeStatusNames(desired: Pick<DesiredState, 'nodes'>): Map<VolumeId, NodeName[]> {
  const named = new Map<VolumeId, NodeName[]>();
  for (const view of desired.nodes.values()) {
    for (const name of [...view.volumesAttached.map((v) => v.name), ...view.volumesInUse]) {
      const volumeId = volumeOfNodeStatusName(name);
      if (volumeId === undefined) continue;
      const nodes = named.get(volumeId) ?? [];
      if (!nodes.includes(view.name)) nodes.push(view.name);
      named.set(volumeId, nodes);
    }
  }
  return named;
}
