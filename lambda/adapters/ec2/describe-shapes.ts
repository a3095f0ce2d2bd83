/**
 * What the adapter decodes of DescribeVolumes and DescribeInstances: the fields mapping.ts reads,
 * with EC2's element names (API Reference: Volume, VolumeAttachment, Tag, Reservation, Instance,
 * InstanceState, InstanceBlockDeviceMapping, EbsInstanceBlockDevice) and the SDK's member names.
 * The types are the SDK's, narrowed to these fields, so reading any other one does not compile:
 * adding a field here is the one way to start reading it.
 */
import type { EbsInstanceBlockDevice, Instance, InstanceBlockDeviceMapping, Tag, Volume, VolumeAttachment } from '@aws-sdk/client-ec2';
import { fields, flag, integer, list, struct, text, time, type ResponseShape } from './xml-decode.js';

export type DecodedAttachment = Pick<
  VolumeAttachment,
  'VolumeId' | 'InstanceId' | 'Device' | 'State' | 'AttachTime' | 'DeleteOnTermination'
>;
export type DecodedTag = Pick<Tag, 'Key' | 'Value'>;

export interface DecodedVolume extends Pick<
  Volume,
  'VolumeId' | 'AvailabilityZone' | 'State' | 'Encrypted' | 'KmsKeyId' | 'MultiAttachEnabled'
> {
  Attachments?: DecodedAttachment[];
  Tags?: DecodedTag[];
}

export interface DecodedBlockDeviceMapping extends Pick<InstanceBlockDeviceMapping, 'DeviceName'> {
  Ebs?: Pick<EbsInstanceBlockDevice, 'VolumeId' | 'Status' | 'AttachTime' | 'DeleteOnTermination'>;
}

export interface DecodedInstance extends Pick<Instance, 'InstanceId' | 'State'> {
  Placement?: Pick<NonNullable<Instance['Placement']>, 'AvailabilityZone'>;
  Tags?: DecodedTag[];
  BlockDeviceMappings?: DecodedBlockDeviceMapping[];
}

const TAG = fields(['key', text('Key')], ['value', text('Value')]);

const ATTACHMENT = fields(
  ['volumeId', text('VolumeId')],
  ['instanceId', text('InstanceId')],
  ['device', text('Device')],
  ['status', text('State')],
  ['attachTime', time('AttachTime')],
  ['deleteOnTermination', flag('DeleteOnTermination')],
);

const VOLUME = fields(
  ['volumeId', text('VolumeId')],
  ['availabilityZone', text('AvailabilityZone')],
  ['status', text('State')],
  ['encrypted', flag('Encrypted')],
  ['kmsKeyId', text('KmsKeyId')],
  ['multiAttachEnabled', flag('MultiAttachEnabled')],
  ['attachmentSet', list('Attachments', ATTACHMENT)],
  ['tagSet', list('Tags', TAG)],
);

export const DESCRIBE_VOLUMES: ResponseShape = {
  root: 'DescribeVolumesResponse',
  fields: fields(['volumeSet', list('Volumes', VOLUME)], ['nextToken', text('NextToken')]),
};

const EBS = fields(
  ['volumeId', text('VolumeId')],
  ['status', text('Status')],
  ['attachTime', time('AttachTime')],
  ['deleteOnTermination', flag('DeleteOnTermination')],
);

const INSTANCE = fields(
  ['instanceId', text('InstanceId')],
  ['instanceState', struct('State', fields(['code', integer('Code')], ['name', text('Name')]))],
  ['placement', struct('Placement', fields(['availabilityZone', text('AvailabilityZone')]))],
  ['tagSet', list('Tags', TAG)],
  ['blockDeviceMapping', list('BlockDeviceMappings', fields(['deviceName', text('DeviceName')], ['ebs', struct('Ebs', EBS)]))],
);

export const DESCRIBE_INSTANCES: ResponseShape = {
  root: 'DescribeInstancesResponse',
  fields: fields(
    [
      'reservationSet',
      list('Reservations', fields(['reservationId', text('ReservationId')], ['instancesSet', list('Instances', INSTANCE)])),
    ],
    ['nextToken', text('NextToken')],
  ),
};
