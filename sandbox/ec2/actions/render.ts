/** XML shapes shared by several actions: tags, attachments, volumes. */
import { attachmentState } from '../state/lifecycle.js';
import type { Delays, SandboxAttachment, SandboxVolume } from '../state/model.js';
import { itemSet, timestamp, type XmlObject, type XmlValue } from '../protocol/xml.js';

export function tagSet(tags: Map<string, string>): XmlValue {
  return itemSet([...tags].map(([key, value]) => ({ key, value })));
}

function attachmentItem(attachment: SandboxAttachment, now: number, delays: Delays): XmlObject {
  return {
    volumeId: attachment.volumeId,
    instanceId: attachment.instanceId,
    device: attachment.device,
    status: attachmentState(attachment, now, delays),
    attachTime: timestamp(attachment.attachTime),
    deleteOnTermination: attachment.deleteOnTermination,
  };
}

export function volumeStatus(volume: SandboxVolume): string {
  return volume.attachments.size > 0 ? 'in-use' : 'available';
}

export function volumeFields(volume: SandboxVolume, status: string, attachments: XmlValue): XmlObject {
  return {
    volumeId: volume.volumeId,
    size: volume.size,
    snapshotId: '',
    availabilityZone: volume.zone,
    status,
    createTime: timestamp(volume.createTime),
    attachmentSet: attachments,
    tagSet: tagSet(volume.tags),
    volumeType: volume.volumeType,
    iops: volume.iops,
    throughput: volume.throughput,
    encrypted: volume.encrypted,
    kmsKeyId: volume.kmsKeyId,
    multiAttachEnabled: volume.multiAttachEnabled,
  };
}

export function volumeItem(volume: SandboxVolume, now: number, delays: Delays): XmlObject {
  const attachments = [...volume.attachments.values()].map((attachment) => attachmentItem(attachment, now, delays));
  return volumeFields(volume, volumeStatus(volume), itemSet(attachments));
}
