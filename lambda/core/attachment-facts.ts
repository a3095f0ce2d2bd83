/**
 * Transitions that record facts about attachments rather than operations: what the node reports
 * and mounts, when a detach was first wanted, what EC2 and the cluster say is attached.
 * Like all transitions they are pure and return the same object when nothing changes.
 */
import { inBackoff } from './backoff.js';
import { leftoverAttachment } from './observed.js';
import { isLive } from './operations.js';
import { accept, clone, emptyRecord, observedState, optional, refuse, type Transition } from './transition-result.js';
import {
  lockKey,
  operationKey,
  type ActualAttachment,
  type Ec2Attachment,
  type InstanceId,
  type NodeName,
  type Operation,
  type UniqueVolumeName,
  type VolumeId,
  type VolumeObservation,
  type VolumeRecord,
} from './types.js';

export interface SeedInput {
  volumeId: VolumeId;
  nodeName: NodeName;
  instanceId: InstanceId;
  device?: string;
  uniqueName?: UniqueVolumeName;
  /** Seeded from the node's `status.volumesAttached`: the node already reports it. */
  reported?: boolean;
}

/** Applies `change` to the node's attachment; refuses when there is none. */
function updateAttachment(
  record: VolumeRecord,
  nodeName: NodeName,
  change: (attachment: ActualAttachment) => ActualAttachment,
): Transition {
  const current = record.attachments[nodeName];
  if (!current) return refuse('no-attachment', `${record.volumeId} has no attachment on ${nodeName}`);
  const changed = change(current);
  if (changed === current) return accept(record);
  const next = clone(record);
  next.attachments[nodeName] = changed;
  return accept(next);
}

/**
 * Pass `lister` wrote the node's `status.volumesAttached` (listing the volume or not): its own claim
 * ends. Other passes' claims stay: their writes may still land.
 */
export function markReported(record: VolumeRecord, nodeName: NodeName, reported: boolean, lister: string): Transition {
  return updateAttachment(record, nodeName, (a) => {
    if (a.reported === reported && a.listingClaims?.[lister] === undefined) return a;
    const { [lister]: _done, ...others } = a.listingClaims ?? {};
    const { listingClaims: _all, ...rest } = a;
    return Object.keys(others).length === 0 ? { ...rest, reported } : { ...rest, reported, listingClaims: others };
  });
}

/**
 * The volume left its node's list ahead of a detach. A listing claim stays: it belongs to another
 * pass whose write may still land and list the volume again, so the detach must keep waiting.
 */
export function markUnreported(record: VolumeRecord, nodeName: NodeName): Transition {
  return updateAttachment(record, nodeName, (a) => (a.reported ? { ...a, reported: false } : a));
}

/**
 * Pass `lister` claims the right to add an `attached` volume to its node's list, until `until`:
 * refused while an operation holds the volume on that node (a detach may be under way). Detaches
 * wait for every claim (invariant 5); the lister's markReported ends its own, an unreport
 * (markUnreported) none. Claims lapsed by `now` go: their passes died before writing, and nothing
 * else would remove them while the volume stays attached.
 */
export function claimListing(record: VolumeRecord, nodeName: NodeName, lister: string, until: number, now: number): Transition {
  const holder = record.operations[lockKey(record, nodeName)];
  if (holder) return refuse('locked', `${record.volumeId} is held by ${holder.kind} ${holder.id} on ${holder.nodeName}`);
  const current = record.attachments[nodeName];
  if (current?.state !== 'attached') return refuse('no-attachment', `${record.volumeId} is not attached on ${nodeName}`);
  return updateAttachment(record, nodeName, (a) => ({ ...a, listingClaims: { ...lastingClaims(a.listingClaims, now), [lister]: until } }));
}

function lastingClaims(claims: Record<string, number> | undefined, now: number): Record<string, number> {
  return Object.fromEntries(Object.entries(claims ?? {}).filter(([, until]) => until > now));
}

/** Whether the node's `volumesInUse` lists the volume. */
export function setMounted(record: VolumeRecord, nodeName: NodeName, mounted: boolean): Transition {
  return updateAttachment(record, nodeName, (a) => (a.mounted === mounted ? a : { ...a, mounted }));
}

/** Remembers when the attachment was first found unneeded (starts maxWaitForUnmount); later calls keep the first time. */
export function requestDetach(record: VolumeRecord, nodeName: NodeName, now: number): Transition {
  return updateAttachment(record, nodeName, (a) => (a.detachRequestedAt === undefined ? { ...a, detachRequestedAt: now } : a));
}

/** The attachment is wanted again. */
export function clearDetachRequest(record: VolumeRecord, nodeName: NodeName): Transition {
  return updateAttachment(record, nodeName, (a) => {
    if (a.detachRequestedAt === undefined) return a;
    const { detachRequestedAt: _dropped, ...rest } = a;
    return rest;
  });
}

function liveOperationOn(record: VolumeRecord, nodeName: NodeName, now: number): boolean {
  const op = record.operations[lockKey(record, nodeName)];
  return op !== undefined && isLive(op, now);
}

/**
 * Corrects the record with EC2's view (verification): attachments EC2 no longer has are removed
 * (except a lost attach that may still land, see `lostAttachMayLand`; a lost detach stays
 * `uncertain` while EC2 shows it `attached`, see `lostDetachMayLand`),
 * states and devices follow EC2, and attachments EC2 has on an instance of a known node
 * (`nodesByInstance`) are added, `attached` or `uncertain`. Attachments on instances of no known
 * node are left out: nothing could detach them safely. A key with a live operation is left to
 * that operation.
 */
export function applyObservation(
  record: VolumeRecord,
  observation: VolumeObservation,
  now: number,
  nodesByInstance: ReadonlyMap<InstanceId, NodeName> = new Map(),
): Transition {
  if (observation.volumeId !== record.volumeId) {
    return refuse('wrong-target', `observation of ${observation.volumeId} does not describe ${record.volumeId}`);
  }
  const seen = new Map<InstanceId, LiveEc2Attachment>();
  for (const a of observation.exists ? observation.attachments : []) if (isPresent(a)) seen.set(a.instanceId, a);
  // Most verified records are unchanged: cloned only on the first correction.
  let next: VolumeRecord | undefined;
  const edited = (): VolumeRecord => (next ??= clone(record));
  for (const current of Object.values(record.attachments)) {
    if (liveOperationOn(record, current.nodeName, now)) continue;
    const view = seen.get(current.instanceId);
    const corrected = view
      ? (lostDetachMayLand(record, current) && view.state === 'attached') || lostAttachSeesLeftover(record, current, view)
        ? current
        : corrections(current, view, now)
      : observation.exists && lostAttachMayLand(record, current)
        ? current
        : undefined;
    if (corrected === current) continue;
    if (corrected) edited().attachments[current.nodeName] = corrected;
    else delete edited().attachments[current.nodeName];
  }
  const known = new Set(Object.values(record.attachments).map((a) => a.instanceId));
  for (const view of seen.values()) {
    if (known.has(view.instanceId)) continue;
    const nodeName = nodesByInstance.get(view.instanceId);
    if (!nodeName || (next ?? record).attachments[nodeName] || liveOperationOn(record, nodeName, now)) continue;
    edited().attachments[nodeName] = {
      nodeName,
      instanceId: view.instanceId,
      state: view.state === 'attached' ? 'attached' : 'uncertain',
      device: view.device,
      mounted: false,
      reported: false,
      since: now,
    };
  }
  return accept(next ?? record);
}

/**
 * An attach whose outcome was lost (timeout, 5xx) leaves the attachment `uncertain` with the
 * attach backing off. The AttachVolume may still be in flight and land after this read, so EC2
 * not showing it yet settles nothing: the entry stays, keeping an exclusive volume off other
 * nodes, until our own call on that node settles it (the retried attach, or a detach).
 */
export function lostAttachMayLand(record: VolumeRecord, attachment: ActualAttachment): boolean {
  return attachment.state === 'uncertain' && record.backoff[operationKey('attach', attachment.nodeName)] !== undefined;
}

/**
 * A detach whose outcome was lost (timeout, 5xx, or a wait that never saw it begin) leaves the
 * attachment `uncertain` with the detach backing off. DescribeVolumes may still show the volume
 * `attached` from before the DetachVolume, so that read settles nothing: marked `attached`, the
 * volume would be listed on its node while EC2 takes it away (invariant 5). `detaching` or no
 * attachment settle it, as does our own next call (the retried detach, or an attach).
 */
export function lostDetachMayLand(record: VolumeRecord, attachment: ActualAttachment): boolean {
  return attachment.state === 'uncertain' && record.backoff[operationKey('detach', attachment.nodeName)] !== undefined;
}

/**
 * A lost attach's attachment keeps the device AttachVolume answered; a view on another device is a
 * lagging read of an earlier attachment (before a detach), which settles nothing (see leftoverAttachment).
 */
function lostAttachSeesLeftover(record: VolumeRecord, attachment: ActualAttachment, view: Ec2Attachment): boolean {
  return (
    lostAttachMayLand(record, attachment) && attachment.device !== undefined && leftoverAttachment(view, { device: attachment.device })
  );
}

type LiveEc2Attachment = Ec2Attachment & { state: Exclude<Ec2Attachment['state'], 'detached'> };
const isPresent = (a: Ec2Attachment): a is LiveEc2Attachment => a.state !== 'detached';

function corrections(current: ActualAttachment, view: LiveEc2Attachment, now: number): ActualAttachment {
  const state = observedState(view.state);
  if (state === current.state && view.device === current.device) return current;
  return { ...current, state, device: view.device, since: state === current.state ? current.since : now };
}

/** Startup / migration: an attachment the cluster claims but nobody verified yet. Existing entries win. */
export function seedUncertain(record: VolumeRecord | undefined, input: SeedInput, now: number): Transition {
  if (record?.attachments[input.nodeName]) return accept(record);
  const next = record ? clone(record) : emptyRecord(input.volumeId, input.uniqueName);
  next.attachments[input.nodeName] = {
    nodeName: input.nodeName,
    instanceId: input.instanceId,
    state: 'uncertain',
    ...optional('device', input.device),
    mounted: false,
    reported: input.reported ?? false,
    since: now,
  };
  return accept(next);
}

/** Operations whose lease has run out: a pass resolves them against EC2 (or takes them over). */
export function expiredOperations(record: VolumeRecord, now: number): Operation[] {
  return Object.values(record.operations).filter((op) => !isLive(op, now));
}

/**
 * Nothing left worth keeping: no attachment and no operation. With `now`, a backoff still in
 * force also keeps the record (removing it would let a failing operation retry at once);
 * without `now`, any backoff entry does.
 */
export function isEmpty(record: VolumeRecord, now?: number): boolean {
  const backoffs = Object.values(record.backoff);
  const holdsBackoff = now === undefined ? backoffs.length > 0 : backoffs.some((b) => inBackoff(b, now));
  return Object.keys(record.attachments).length === 0 && Object.keys(record.operations).length === 0 && !holdsBackoff;
}
