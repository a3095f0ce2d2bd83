/**
 * Which VolumeAttachment objects to write (DESIGN §7): the kubelet waits for `status.attached` with
 * the devicePath the EBS node plugin needs, so an object follows the actual state. Attached (as
 * reportable.ts rules: on the node's instance, and EC2 still shows it when asked) → report it attached; no attachment and not wanted → delete it; no attachment but still wanted (an attach
 * failed or waits) → keep it and its attachError for the user, but never let it go on claiming an
 * attachment that is gone; anything in between (attaching, detaching, uncertain) is left until EC2
 * settles it. The reconcile layer carries the changes out.
 */
import type { ClusterSnapshot } from './kube.js';
import { hasOperationOn } from './operations.js';
import { reportableDevice } from './reportable.js';
import { pairKey, pairOf, type ActualState, type DesiredState, type NodeName, type Observations, type VolumeId } from './types.js';
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

/** What the pass knows to judge an object: the desired state (its nodes' instances, the scope), the records, EC2's word. */
export interface PairView {
  desired: Pick<DesiredState, 'attachments' | 'nodes' | 'scope'>;
  actual: ActualState;
  observations?: Observations;
}

/** The device the pair's object may report as attached (reportable.ts), if any. */
function deviceOf(view: PairView, volumeId: VolumeId, nodeName: NodeName): string | undefined {
  return reportableDevice(view.actual.get(volumeId)?.attachments[nodeName], {
    instanceId: view.desired.nodes.get(nodeName)?.instanceId,
    observation: view.observations?.volumes?.get(volumeId),
  });
}

function upToDate(existing: VolumeAttachmentStatusView | undefined, device: string | undefined): boolean {
  return device !== undefined && existing?.attached === true && existing.devicePath === device;
}

/**
 * The change one (volume, node) object needs now, e.g. right after an attach, detach or resolve.
 * `claimsAttached`: the caller read the object and it says attached (only a full pass knows). A
 * targeted pass writes only objects of the volumes it loaded.
 */
export function volumeAttachmentChange(
  view: PairView,
  volumeId: VolumeId,
  nodeName: NodeName,
  claimsAttached = false,
): VolumeAttachmentChange | undefined {
  const { desired, actual } = view;
  if (desired.scope !== undefined && !desired.scope.volumes.includes(volumeId)) return undefined;
  const attachment = actual.get(volumeId)?.attachments[nodeName];
  if (attachment === undefined) {
    const wanted = desired.attachments.some((a) => a.volumeId === volumeId && a.nodeName === nodeName);
    if (!wanted) return { volumeId, nodeName, change: 'delete' };
    return claimsAttached ? { volumeId, nodeName, change: 'report-not-attached' } : undefined;
  }
  const device = deviceOf(view, volumeId, nodeName);
  return device === undefined ? undefined : { volumeId, nodeName, change: 'report-attached', devicePath: device };
}

export interface VolumeAttachmentInputs extends PairView {
  /** (volume, node) pairs whose attachment this pass changed or corrected (pair keys). */
  touched: Iterable<string>;
  /** The objects as listed this pass, by pair key; absent when the pass did not list them (targeted). */
  existing?: ReadonlyMap<string, VolumeAttachmentStatusView>;
}

/** Pairs a full listing shows out of line: attached but not (rightly) reported, or an object with no attachment behind it. */
function outOfLine(view: PairView, existing: ReadonlyMap<string, VolumeAttachmentStatusView>): string[] {
  const pairs: string[] = [];
  for (const record of view.actual.values()) {
    for (const a of Object.values(record.attachments)) {
      const key = pairKey(record.volumeId, a.nodeName);
      if (a.state === 'attached' && !upToDate(existing.get(key), deviceOf(view, record.volumeId, a.nodeName))) pairs.push(key);
    }
  }
  for (const key of existing.keys()) {
    const { volumeId, nodeName } = pairOf(key);
    const record = view.actual.get(volumeId);
    // An operation in flight on the pair settles it first; its own report follows.
    if (record?.attachments[nodeName] === undefined && !hasOperationOn(record, nodeName)) pairs.push(key);
  }
  return pairs;
}

/** Every VolumeAttachment change the end of a pass makes: the touched pairs, plus whatever a full listing shows out of line. */
export function volumeAttachmentChanges(inputs: VolumeAttachmentInputs): VolumeAttachmentChange[] {
  const { existing } = inputs;
  const pairs = new Set([...inputs.touched, ...(existing === undefined ? [] : outOfLine(inputs, existing))]);
  const changes: VolumeAttachmentChange[] = [];
  for (const key of pairs) {
    const { volumeId, nodeName } = pairOf(key);
    const current = existing?.get(key);
    // A touched pair (verified, seeded) whose object already says what the record says needs no
    // write: at a takeover that is every existing VolumeAttachment.
    if (upToDate(current, deviceOf(inputs, volumeId, nodeName))) continue;
    const change = volumeAttachmentChange(inputs, volumeId, nodeName, current?.attached === true);
    if (change !== undefined) changes.push(change);
  }
  return changes;
}
