/**
 * Attacher mode: attachments EC2 shows (our actual state, as verified this pass) that no
 * VolumeAttachment names. kcm decides what is attached, so we never detach them on our own: a
 * missing object may be a partial view, a migration from the sidecar, or an operator's manual
 * attach. They are reported (a metric and a log line each) and left to kcm and the
 * mass-detach-guarded rules. Judged only against a complete listing of every VolumeAttachment.
 */
import { ec2ShowsAttachment } from '../observed.js';
import {
  type ActualState,
  type AttachmentState,
  type InstanceId,
  type NodeName,
  type Observations,
  pairKey,
  type VolumeId,
} from '../types.js';
import type { VaTarget } from './targets.js';

export interface UnwantedAttachment {
  volumeId: VolumeId;
  nodeName: NodeName;
  instanceId: InstanceId;
  state: AttachmentState;
}

/** Every (volume, node) attachment no VolumeAttachment (live or being deleted) asks for, EC2 permitting. */
export function unwantedAttachments(actual: ActualState, targets: readonly VaTarget[], observations: Observations): UnwantedAttachment[] {
  const asked = new Set(targets.flatMap((t) => (t.volumeId === undefined ? [] : [pairKey(t.volumeId, t.nodeName)])));
  const unwanted: UnwantedAttachment[] = [];
  for (const record of actual.values()) {
    for (const attachment of Object.values(record.attachments)) {
      if (asked.has(pairKey(record.volumeId, attachment.nodeName))) continue;
      if (!ec2ShowsAttachment(attachment, observations.volumes?.get(record.volumeId))) continue;
      const { nodeName, instanceId, state } = attachment;
      unwanted.push({ volumeId: record.volumeId, nodeName, instanceId, state });
    }
  }
  return unwanted;
}
