/**
 * Which VolumeAttachment objects to write (DESIGN §7): the kubelet waits for `status.attached` with
 * the devicePath the EBS node plugin needs, so an object follows the actual state. Attached → report
 * it attached; no attachment and not wanted → delete it; no attachment but still wanted (an attach
 * failed or waits) → keep it and its attachError for the user, but never let it go on claiming an
 * attachment that is gone; anything in between (attaching, detaching, uncertain) is left until EC2
 * settles it. The reconcile layer carries the changes out.
 */
import type { ClusterSnapshot } from './kube.js';
import type { ActualAttachment, ActualState, DesiredState, NodeName, VolumeId } from './types.js';
import { ebsVolumeId, pvLookup, volumeOfVolumeAttachment } from './volume-sources.js';

export type VolumeAttachmentChange =
  | { volumeId: VolumeId; nodeName: NodeName; change: 'report-attached'; devicePath: string }
  | { volumeId: VolumeId; nodeName: NodeName; change: 'report-not-attached' }
  | { volumeId: VolumeId; nodeName: NodeName; change: 'delete' };

/** What an existing object's status says. */
export interface VolumeAttachmentStatusView {
  attached: boolean;
  devicePath?: string;
}

/** The key of a (volume, node) pair in the pass's sets and in the VolumeAttachment index. */
export function pairKey(volumeId: VolumeId, nodeName: NodeName): string {
  return `${volumeId}|${nodeName}`;
}

export function pairOf(key: string): { volumeId: VolumeId; nodeName: NodeName } {
  const [volumeId = '', nodeName = ''] = key.split('|');
  return { volumeId, nodeName };
}

/** Every EBS VolumeAttachment by the (volume, node) it is for; objects naming no valid EBS volume are not ours to judge. */
export function indexVolumeAttachments(
  snapshot: Pick<ClusterSnapshot, 'pvs' | 'volumeAttachments'>,
): Map<string, VolumeAttachmentStatusView> {
  const pvNamed = pvLookup(snapshot.pvs);
  const index = new Map<string, VolumeAttachmentStatusView>();
  for (const va of snapshot.volumeAttachments) {
    const volumeId = ebsVolumeId(volumeOfVolumeAttachment(va, pvNamed));
    if (volumeId === undefined) continue;
    const devicePath = va.status?.attachmentMetadata?.devicePath;
    index.set(pairKey(volumeId, va.spec.nodeName), {
      attached: va.status?.attached === true,
      ...(devicePath === undefined ? {} : { devicePath }),
    });
  }
  return index;
}

function upToDate(existing: VolumeAttachmentStatusView | undefined, attachment: ActualAttachment | undefined): boolean {
  return attachment?.state === 'attached' && existing?.attached === true && existing.devicePath === attachment.device;
}

/**
 * The change one (volume, node) object needs now, e.g. right after an attach, detach or resolve.
 * `claimsAttached`: the caller read the object and it says attached (only a full pass knows). A
 * targeted pass writes only objects of the volumes it loaded.
 */
export function volumeAttachmentChange(
  desired: Pick<DesiredState, 'attachments' | 'scope'>,
  actual: ActualState,
  volumeId: VolumeId,
  nodeName: NodeName,
  claimsAttached = false,
): VolumeAttachmentChange | undefined {
  if (desired.scope !== undefined && !desired.scope.volumes.includes(volumeId)) return undefined;
  const attachment = actual.get(volumeId)?.attachments[nodeName];
  if (attachment === undefined) {
    const wanted = desired.attachments.some((a) => a.volumeId === volumeId && a.nodeName === nodeName);
    if (!wanted) return { volumeId, nodeName, change: 'delete' };
    return claimsAttached ? { volumeId, nodeName, change: 'report-not-attached' } : undefined;
  }
  if (attachment.state === 'attached' && attachment.device !== undefined) {
    return { volumeId, nodeName, change: 'report-attached', devicePath: attachment.device };
  }
  return undefined;
}

export interface VolumeAttachmentInputs {
  desired: Pick<DesiredState, 'attachments' | 'scope'>;
  actual: ActualState;
  /** (volume, node) pairs whose attachment this pass changed or corrected (pair keys). */
  touched: Iterable<string>;
  /** The objects as listed this pass, by pair key; absent when the pass did not list them (targeted). */
  existing?: ReadonlyMap<string, VolumeAttachmentStatusView>;
}

/** Pairs a full listing shows out of line: attached but not (rightly) reported, or an object with no attachment behind it. */
function outOfLine(actual: ActualState, existing: ReadonlyMap<string, VolumeAttachmentStatusView>): string[] {
  const pairs: string[] = [];
  for (const record of actual.values()) {
    for (const a of Object.values(record.attachments)) {
      const key = pairKey(record.volumeId, a.nodeName);
      if (a.state === 'attached' && !upToDate(existing.get(key), a)) pairs.push(key);
    }
  }
  for (const key of existing.keys()) {
    const { volumeId, nodeName } = pairOf(key);
    const record = actual.get(volumeId);
    // An operation in flight on the pair settles it first; its own report follows.
    if (record?.attachments[nodeName] === undefined && !Object.values(record?.operations ?? {}).some((op) => op.nodeName === nodeName))
      pairs.push(key);
  }
  return pairs;
}

/** Every VolumeAttachment change the end of a pass makes: the touched pairs, plus whatever a full listing shows out of line. */
export function volumeAttachmentChanges(inputs: VolumeAttachmentInputs): VolumeAttachmentChange[] {
  const { desired, actual, existing } = inputs;
  const pairs = new Set([...inputs.touched, ...(existing === undefined ? [] : outOfLine(actual, existing))]);
  const changes: VolumeAttachmentChange[] = [];
  for (const key of pairs) {
    const { volumeId, nodeName } = pairOf(key);
    const current = existing?.get(key);
    // A touched pair (verified, seeded) whose object already says what the record says needs no
    // write: at a takeover that is every existing VolumeAttachment.
    if (upToDate(current, actual.get(volumeId)?.attachments[nodeName])) continue;
    const change = volumeAttachmentChange(desired, actual, volumeId, nodeName, current?.attached === true);
    if (change !== undefined) changes.push(change);
  }
  return changes;
}
