/**
 * What a VolumeAttachment may say (DESIGN §11, invariants 5 and 7), one rule for both modes: it says
 * `attached: true` only for an attachment our record holds as `attached`, with its device, on the
 * instance the object is for, and that EC2, when asked this pass, still shows there.
 */
import { ec2ShowsAttachment } from './observed.js';
import type { ActualAttachment, InstanceId, VolumeObservation } from './types.js';

export interface ReportedOn {
  /** The instance the object is for (the node's, or the one its VolumeAttachment names); undefined when unknown: then nothing is reportable. */
  instanceId: InstanceId | undefined;
  /** EC2's word on the volume this pass; undefined when EC2 was not asked. */
  observation: VolumeObservation | undefined;
}

/** The device the object may report as attached, or undefined when it may not say attached. */
export function reportableDevice(attachment: ActualAttachment | undefined, on: ReportedOn): string | undefined {
  if (attachment?.state !== 'attached' || attachment.device === undefined || attachment.instanceId !== on.instanceId) return undefined;
  return ec2ShowsAttachment(attachment, on.observation) ? attachment.device : undefined;
}
