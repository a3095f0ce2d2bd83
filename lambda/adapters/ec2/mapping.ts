/** SDK shapes (as far as describe-shapes.ts decodes them) → domain observations. */
import type { Ec2Attachment, InstanceState, VolumeId, VolumeObservation } from '../../core/types.js';
import type { SeenInstance } from '../../ports/block-storage.js';
import type { DecodedInstance, DecodedTag, DecodedVolume } from './describe-shapes.js';

const ATTACHMENT_STATES = new Set<string>(['attaching', 'attached', 'detaching', 'detached', 'busy']);
const INSTANCE_STATES = new Set<string>(['pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated']);

export function toObservation(volume: DecodedVolume): VolumeObservation | undefined {
  if (!volume.VolumeId) return undefined;
  const attachments: Ec2Attachment[] = (volume.Attachments ?? []).flatMap((attachment) => {
    if (!attachment.InstanceId || !attachment.State || !ATTACHMENT_STATES.has(attachment.State)) return [];
    const seen: Ec2Attachment = { instanceId: attachment.InstanceId, state: attachment.State, device: attachment.Device ?? '' };
    if (attachment.AttachTime) seen.attachTime = attachment.AttachTime.getTime();
    return [seen];
  });
  return {
    volumeId: volume.VolumeId,
    exists: true,
    zone: volume.AvailabilityZone,
    multiAttachEnabled: volume.MultiAttachEnabled ?? false,
    attachments,
    tags: tagsOf(volume.Tags),
    encrypted: volume.Encrypted ?? false,
    ...(volume.KmsKeyId === undefined ? {} : { kmsKeyId: volume.KmsKeyId }),
  };
}

function tagsOf(tags: DecodedTag[] | undefined): Record<string, string> {
  return Object.fromEntries((tags ?? []).flatMap((tag) => (tag.Key === undefined ? [] : [[tag.Key, tag.Value ?? '']])));
}

export function missingVolume(volumeId: VolumeId): VolumeObservation {
  return { volumeId, exists: false, attachments: [] };
}

export function instanceState(instance: DecodedInstance): InstanceState | undefined {
  const name = instance.State?.Name;
  return name !== undefined && INSTANCE_STATES.has(name) ? name : undefined;
}

/** What attach needs from DescribeInstances: the state and the device → volume mappings. */
export interface InstanceView extends SeenInstance {
  instanceId: string;
}

export function toInstanceView(instance: DecodedInstance): InstanceView {
  return {
    instanceId: instance.InstanceId ?? '',
    state: instanceState(instance),
    tags: tagsOf(instance.Tags),
    mappings: (instance.BlockDeviceMappings ?? []).flatMap((mapping) =>
      mapping.DeviceName ? [{ device: mapping.DeviceName, volumeId: mapping.Ebs?.VolumeId }] : [],
    ),
  };
}
