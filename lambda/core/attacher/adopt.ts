/**
 * Taking over from another attacher (the EBS CSI `csi-attacher` sidecar, docs/eks.md Step 3): what
 * it attached is in EC2 and on its VolumeAttachments but in no record of ours. A full pass asks EC2
 * about those volumes whether or not a verification is due, so that the record is written from
 * EC2's word: an attached object is adopted as it is (never attached again, its status untouched),
 * and a deleting one is recorded, then detached through our own intent and lock.
 */
import type { ActualState, VolumeId } from '../types.js';
import type { VaTarget } from './targets.js';

/** Another attacher's work, or ours, that our records do not hold for this (volume, node). */
function unrecorded(target: VaTarget, actual: ActualState): boolean {
  return target.volumeId !== undefined && actual.get(target.volumeId)?.attachments[target.nodeName] === undefined;
}

/** An object that says attached, or one kcm is deleting that carries the attacher finalizer (the sidecar's is ours too). */
function claimsAnAttachment(target: VaTarget): boolean {
  return target.deleting ? target.finalized : target.va.status?.attached === true;
}

/** The volumes EC2 must be asked about this pass, sorted: objects claiming an attachment our records do not hold. */
export function volumesToAdopt(targets: readonly VaTarget[], actual: ActualState): VolumeId[] {
  const volumeIds = targets.flatMap((t) => (claimsAnAttachment(t) && unrecorded(t, actual) ? [t.volumeId!] : []));
  return [...new Set(volumeIds)].sort();
}
