/**
 * An attach EC2 accepted (AttachVolume answered `attaching`, or "already attached") that the wait
 * did not see reach `attached`. DescribeVolumes is eventually consistent: for a while after a
 * mutation it may still show the volume as it was before, with no attachment at all. Silence after
 * EC2 accepted the call is therefore no answer. Were the attachment forgotten, an exclusive volume
 * whose type allows Multi-Attach (io2 behind an RWO claim) could be attached to a second node while
 * the first attach lands.
 */
import type { BackoffConfig } from './backoff.js';
import { failOperation, leaveInProgress, type Transition } from './transitions.js';
import type { Ec2AttachmentState, VolumeRecord } from './types.js';

/**
 * `seen` is what the wait last saw. Still `attaching`: the intent stays for a later pass (its lease
 * ends now). Anything else (no attachment yet, detaching): the lock is released, the attachment becomes `uncertain` and the
 * attach backs off, so verification keeps it (`lostAttachMayLand`) until EC2 shows it or our own
 * call on that node settles it. It keeps the `device` AttachVolume answered with, so no other attach
 * on that instance picks the name the lost one may still land on.
 */
export function settleAcceptedAttach(
  record: VolumeRecord,
  operationId: string,
  seen: Ec2AttachmentState,
  device: string,
  now: number,
  backoff: BackoffConfig,
): Transition {
  if (seen === 'attaching') return leaveInProgress(record, operationId, now);
  const error = `EC2 accepted the attach but shows it ${seen} at the wait deadline`;
  const failed = failOperation(record, operationId, error, now, backoff, { ec2MayStillBeWorking: true });
  const nodeName = Object.values(record.operations).find((op) => op.id === operationId)?.nodeName;
  const kept = failed.ok && nodeName !== undefined ? failed.record.attachments[nodeName] : undefined;
  // The answered device wins over an earlier attachment's: it is where the lost attach may land.
  if (kept) kept.device = device;
  return failed;
}
