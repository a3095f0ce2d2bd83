/**
 * Taking over from kube-controller-manager (DESIGN §6, startup / migration): every attachment the
 * cluster claims, from node `status.volumesAttached` and from attached EBS VolumeAttachments, becomes
 * a seed input; each is recorded `uncertain` until EC2 settles it. Only managed nodes with a valid
 * instance id can hold one: an attachment nobody can name an instance for could never be verified.
 */
import { applyObservation, seedUncertain, setMounted, type SeedInput } from './attachment-facts.js';
import type { ClusterSnapshot } from './kube.js';
import { isMounted } from './nodes.js';
import { accept, type Transition } from './transition-result.js';
import type { InstanceId, NodeName, NodeView, VolumeId, VolumeObservation, VolumeRecord } from './types.js';
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

/** Claimed volumes per takeover step: one DescribeVolumes batch, so no id is asked twice across invocations. */
export const TAKEOVER_STEP = 500;

/** The claimed volumes still to take over (ids after `through`), in id order, in steps of `size`. */
export function takeoverSteps(claimed: Iterable<VolumeId>, through: VolumeId | undefined, size = TAKEOVER_STEP): VolumeId[][] {
  const left = [...claimed].filter((id) => through === undefined || id > through).sort();
  return Array.from({ length: Math.ceil(left.length / size) }, (_, i) => left.slice(i * size, (i + 1) * size));
}

/** The seed inputs applied in order; `seedUncertain` keeps an existing entry. */
export function seedAll(record: VolumeRecord | undefined, inputs: readonly SeedInput[], now: number): Transition {
  let next = record;
  for (const input of inputs) {
    const seeded = seedUncertain(next, input, now);
    if (!seeded.ok) return seeded;
    next = seeded.record;
  }
  return next === undefined ? { ok: false, refused: 'wrong-target', reason: 'no claim to seed' } : accept(next);
}

export interface TakeoverView {
  nodes: ReadonlyMap<NodeName, NodeView>;
  /** The nodes whose attachment of a volume EC2 may add to its record (verification.ts, `adoptableNodes`). */
  adoptable(volumeId: VolumeId): ReadonlyMap<InstanceId, NodeName>;
}

/**
 * One volume's takeover as one write: its claims seeded `uncertain`, settled by EC2's word when
 * there is one, and each remaining entry marked mounted as its node's `volumesInUse` says (the
 * fact the plan would otherwise write in a second pass over every record).
 */
export function takeOverVolume(
  record: VolumeRecord | undefined,
  inputs: readonly SeedInput[],
  observation: VolumeObservation | undefined,
  now: number,
  view: TakeoverView,
): Transition {
  const seeded = seedAll(record, inputs, now);
  if (!seeded.ok || observation === undefined) return seeded;
  const settled = applyObservation(seeded.record, observation, now, view.adoptable(seeded.record.volumeId));
  if (!settled.ok) return settled;
  let next: Transition = settled;
  for (const attachment of Object.values(settled.record.attachments)) {
    const node = view.nodes.get(attachment.nodeName);
    if (node === undefined || !next.ok) continue;
    next = setMounted(next.record, attachment.nodeName, isMounted(node.volumesInUse, settled.record.uniqueName));
  }
  return next;
}
