/**
 * When a pass asks EC2 (DESIGN §4 step 3) and about what. A complete pass verifies every volume
 * and instance it knows once per sync period; a covered pass (a live watcher covers the cluster)
 * verifies at each sync what is unsettled or recently acted on plus a rolling slice of the rest,
 * so every volume is described within `slices` sync periods; in between, any pass asks only about
 * attachments in flux, the ones a plan must not judge on the record's word alone (a stuck attach
 * is detached only on EC2's).
 */
import {
  type ActualState,
  type DesiredState,
  type InstanceId,
  type NodeName,
  type Observations,
  pairKey,
  type VolumeId,
  type VolumeRecord,
} from './types.js';
import { adoptionIndex, nodesByInstance } from './adoption.js';

export { nodesByInstance };

export interface VerificationTargets {
  volumeIds: VolumeId[];
  instanceIds: InstanceId[];
}

/**
 * Take over from kube-controller-manager now? Only from a complete read of the cluster (a partial
 * one would seed a partial picture), and only until a seeding has been verified once.
 */
export function seedDue(clusterComplete: boolean, seededAt: number | undefined): boolean {
  return clusterComplete && seededAt === undefined;
}

/** A full verification is due when seeding (the seeded entries are unverified), never done, or a sync period old. */
export function verificationDue(seeding: boolean, lastVerifiedAt: number | undefined, now: number, syncPeriodMs: number): boolean {
  return seeding || lastVerifiedAt === undefined || now - lastVerifiedAt >= syncPeriodMs;
}

/** The instances behind the nodes and recorded attachments (and any named besides), sorted. */
export function instancesOf(desired: Pick<DesiredState, 'nodes'>, actual: ActualState, also: readonly InstanceId[] = []): InstanceId[] {
  const instanceIds = new Set<InstanceId>(also);
  for (const view of desired.nodes.values()) if (view.instanceId !== undefined) instanceIds.add(view.instanceId);
  for (const record of actual.values()) for (const a of Object.values(record.attachments)) instanceIds.add(a.instanceId);
  return [...instanceIds].sort();
}

/** A full verification: every volume known to either state, every instance behind a node or an attachment. */
export function verificationTargets(desired: Pick<DesiredState, 'nodes' | 'attachments'>, actual: ActualState): VerificationTargets {
  const volumeIds = new Set<VolumeId>([...actual.keys(), ...desired.attachments.map((a) => a.volumeId)]);
  return { volumeIds: [...volumeIds].sort(), instanceIds: instancesOf(desired, actual) };
}

/** Between sync periods: volumes with an attachment attaching, detaching or uncertain, and those attachments' instances. */
export function unsettledTargets(actual: ActualState): VerificationTargets {
  const volumeIds: VolumeId[] = [];
  const instanceIds = new Set<InstanceId>();
  for (const record of actual.values()) {
    const unsettled = Object.values(record.attachments).filter((a) => a.state !== 'attached');
    if (unsettled.length === 0) continue;
    volumeIds.push(record.volumeId);
    for (const a of unsettled) instanceIds.add(a.instanceId);
  }
  return { volumeIds: volumeIds.sort(), instanceIds: [...instanceIds].sort() };
}

/**
 * The cluster uses the volume (a desired attachment), a node reports or mounts it, or kcm released
 * it (attacher mode: a deleting VolumeAttachment another attacher may have attached, which must be
 * recorded to be detached). Only such a volume, seen attached by EC2 without a record, may be taken
 * into the actual state: an instance's root volume, or any volume the cluster knows nothing of,
 * would look unneeded and be detached.
 */
export function clusterKnows(desired: Pick<DesiredState, 'nodes' | 'attachments' | 'decidedBy'>, volumeId: VolumeId): boolean {
  return adoptionIndex(desired).knows(volumeId);
}

/**
 * The nodes whose attachment of `volumeId` EC2 may add to its record, by instance. Attacher mode:
 * any node (kcm decides; an attachment no VolumeAttachment asks for is only reported). Controller
 * mode: only a node whose status names the volume (`volumesAttached` or `volumesInUse`) or whose
 * VolumeAttachment does, as upstream's actual state holds only what it attached or a node reports.
 * Anything else EC2 shows is someone else's (an operator's attach, another controller's): adopted,
 * it would look unneeded and be detached from a live instance.
 */
export function adoptableNodes(
  desired: Pick<DesiredState, 'nodes' | 'attachments' | 'decidedBy'>,
  volumeId: VolumeId,
): ReadonlyMap<InstanceId, NodeName> {
  return adoptionIndex(desired).adoptable(volumeId);
}

/**
 * Attachments EC2 shows on a node's instance that the actual state does not hold and no desired
 * attachment is about to take: reported (`UnwantedAttachments`), never detached.
 */
export function unrecordedAttachments(
  desired: Pick<DesiredState, 'nodes' | 'decidedBy' | 'attachments'>,
  actual: ActualState,
  observations: Observations,
): { volumeId: VolumeId; nodeName: NodeName; instanceId: InstanceId }[] {
  const byInstance = nodesByInstance(desired);
  const wanted = new Set(desired.attachments.map((a) => pairKey(a.volumeId, a.nodeName)));
  const found: { volumeId: VolumeId; nodeName: NodeName; instanceId: InstanceId }[] = [];
  for (const observation of observations.volumes?.values() ?? []) {
    const recorded = new Set(Object.values(actual.get(observation.volumeId)?.attachments ?? {}).map((a) => a.instanceId));
    for (const seen of observation.attachments) {
      const nodeName = byInstance.get(seen.instanceId);
      if (seen.state === 'detached' || nodeName === undefined || recorded.has(seen.instanceId)) continue;
      if (wanted.has(pairKey(observation.volumeId, nodeName))) continue;
      found.push({ volumeId: observation.volumeId, nodeName, instanceId: seen.instanceId });
    }
  }
  return found;
}

/**
 * Which of `slices` rolling slices a volume belongs to: a hash of its id (FNV-1a), so a volume keeps
 * its slice whatever else is created or deleted, and slices stay even without any bookkeeping.
 */
export function sliceOf(volumeId: VolumeId, slices: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < volumeId.length; i++) {
    hash ^= volumeId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % Math.max(1, slices);
}

/** What a covered pass (the watcher covers the cluster; nothing was listed) verifies at a sync. */
export interface RollingSlice {
  /** Which slice is due: a counter the controller state moves on after each covered verification. */
  slice: number;
  /** Every volume is described at least once in this many consecutive covered verifications. */
  slices: number;
  now: number;
  /** An attachment that entered its state this recently (our own attach or detach) is described every pass. */
  recentMs: number;
}

/** Recently acted on: an operation or backoff on record, or an attachment that changed state within `recentMs`. */
export function recentlyActed(record: VolumeRecord, now: number, recentMs: number): boolean {
  if (Object.keys(record.operations).length > 0 || Object.keys(record.backoff).length > 0) return true;
  return Object.values(record.attachments).some((a) => now - a.since < recentMs);
}

/**
 * A covered pass's verification: every unsettled or recently acted volume, plus the due slice of
 * the rest. Over `slices` consecutive slices every volume on record is described at least once (a
 * complete pass describes them all).
 *
 * Instances: only those behind attachments in flux, as between syncs (`unsettledTargets`). What an
 * instance's state decides is read nowhere else in a covered pass: its desired state holds no
 * attachment (nothing is attached, so no attach waits on a stopping instance) and its scope no
 * node, so an unneeded attachment stops at "incomplete input" before the stopped or terminated
 * instance rule is asked; a stuck attach and an expired operation are judged on DescribeVolumes;
 * no node is read, so no out-of-service taint is decided; nothing is adopted. An instance going
 * away is the watcher's news (the node's targeted pass describes it), an EC2 state-change event's
 * (the instance's pass) or the next complete pass's, which describes every instance.
 */
export function rollingTargets(actual: ActualState, rolling: RollingSlice): VerificationTargets {
  const due = ((rolling.slice % rolling.slices) + rolling.slices) % rolling.slices;
  const volumeIds: VolumeId[] = [];
  const instanceIds = new Set<InstanceId>();
  for (const record of actual.values()) {
    const unsettled = Object.values(record.attachments).filter((a) => a.state !== 'attached');
    const chosen =
      unsettled.length > 0 || recentlyActed(record, rolling.now, rolling.recentMs) || sliceOf(record.volumeId, rolling.slices) === due;
    if (!chosen) continue;
    volumeIds.push(record.volumeId);
    for (const a of unsettled) instanceIds.add(a.instanceId);
  }
  return { volumeIds: volumeIds.sort(), instanceIds: [...instanceIds].sort() };
}
