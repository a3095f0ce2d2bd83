/**
 * Taking over from kube-controller-manager (DESIGN §6, startup / migration): every attachment the
 * cluster claims, from node `status.volumesAttached` and from attached EBS VolumeAttachments, becomes
 * a seed input; each is recorded `uncertain` until EC2 settles it. Only managed nodes with a valid
 * instance id can hold one: an attachment nobody can name an instance for could never be verified.
 */
import type { SeedInput } from './attachment-facts.js';
import type { ClusterSnapshot } from './kube.js';
import type { NodeName, NodeView, VolumeId } from './types.js';
import { ebsVolumeId, pvLookup, volumeOfNodeStatusName, volumeOfVolumeAttachment } from './volume-sources.js';

/** What each managed node reports attached: the node already lists these. */
function claimsFromNodes(nodes: ReadonlyMap<NodeName, NodeView>): SeedInput[] {
  const claims: SeedInput[] = [];
  for (const view of nodes.values()) {
    if (!view.managed || view.instanceId === undefined) continue;
    for (const entry of view.volumesAttached) {
      const volumeId = volumeOfNodeStatusName(entry.name);
      if (volumeId === undefined) continue;
      claims.push({ volumeId, nodeName: view.name, instanceId: view.instanceId, device: entry.devicePath, reported: true });
    }
  }
  return claims;
}

/** What attached EBS VolumeAttachments say, on nodes whose instance is known. */
function claimsFromVolumeAttachments(
  nodes: ReadonlyMap<NodeName, NodeView>,
  snapshot: Pick<ClusterSnapshot, 'pvs' | 'volumeAttachments'>,
): SeedInput[] {
  const pvNamed = pvLookup(snapshot.pvs);
  const claims: SeedInput[] = [];
  for (const va of snapshot.volumeAttachments) {
    if (va.status?.attached !== true) continue;
    const volumeId = ebsVolumeId(volumeOfVolumeAttachment(va, pvNamed));
    const instanceId = nodes.get(va.spec.nodeName)?.instanceId;
    if (volumeId === undefined || instanceId === undefined) continue;
    const device = va.status.attachmentMetadata?.devicePath;
    claims.push({ volumeId, nodeName: va.spec.nodeName, instanceId, ...(device === undefined ? {} : { device }) });
  }
  return claims;
}

/**
 * The seed inputs by volume, node reports first: applied in order, the first claim of a (volume,
 * node) wins (`seedUncertain` keeps existing entries), so a node's own list beats a VolumeAttachment.
 */
export function takeoverSeeds(
  nodes: ReadonlyMap<NodeName, NodeView>,
  snapshot: Pick<ClusterSnapshot, 'pvs' | 'volumeAttachments'>,
): Map<VolumeId, SeedInput[]> {
  const byVolume = new Map<VolumeId, SeedInput[]>();
  for (const claim of [...claimsFromNodes(nodes), ...claimsFromVolumeAttachments(nodes, snapshot)]) {
    byVolume.set(claim.volumeId, [...(byVolume.get(claim.volumeId) ?? []), claim]);
  }
  return byVolume;
}
