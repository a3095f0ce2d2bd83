/** CreateVolume, DeleteVolume, DescribeVolumes. */
import { Ec2Error, ec2Errors } from '../protocol/errors.js';
import { filters, list, optional, optionalBool, optionalInt, required, tagSpecifications } from '../protocol/form.js';
import { itemSet } from '../protocol/xml.js';
import { attachmentState } from '../state/lifecycle.js';
import { getAll, getVolume } from '../state/lookup.js';
import { awsManagedEbsKeyArn, regionOfZone } from '../state/kms.js';
import { newId, type SandboxVolume, type World } from '../state/model.js';
import type { ActionContext, ActionDefinition } from './context.js';
import { applyFilters, paginate, tagField } from './query.js';
import { volumeFields, volumeItem, volumeStatus } from './render.js';

const MULTI_ATTACH_TYPES = new Set(['io1', 'io2']);
const VOLUME_TYPES = new Set(['standard', 'gp2', 'gp3', 'io1', 'io2', 'st1', 'sc1']);

function createVolume({ params, world, now }: ActionContext) {
  const token = optional(params, 'ClientToken');
  const previous = token === undefined ? undefined : world.clientTokens.get(token)?.[0];
  if (previous !== undefined && world.volumes.has(previous)) {
    const volume = getVolume(world, previous);
    return volumeFields(volume, volumeStatus(volume), undefined);
  }
  const volume = newVolume(params, now, world.config.ownerId);
  world.volumes.set(volume.volumeId, volume);
  if (token !== undefined) world.clientTokens.set(token, [volume.volumeId]);
  return volumeFields(volume, 'creating', undefined);
}

function newVolume(params: ActionContext['params'], now: number, account: string): SandboxVolume {
  const zone = required(params, 'AvailabilityZone');
  const volumeType = optional(params, 'VolumeType') ?? 'gp2';
  if (!VOLUME_TYPES.has(volumeType)) throw ec2Errors.invalidParameter(`Value (${volumeType}) for parameter volumeType is invalid.`);
  const multiAttachEnabled = optionalBool(params, 'MultiAttachEnabled') ?? false;
  if (multiAttachEnabled && !MULTI_ATTACH_TYPES.has(volumeType)) {
    throw ec2Errors.combination(`Multi-Attach is supported only for io1 and io2 volumes, not ${volumeType}.`);
  }
  const size = optionalInt(params, 'Size');
  if (size === undefined || size < 1) throw ec2Errors.missingParameter('Size');
  return {
    volumeId: newId('vol'),
    zone,
    size,
    volumeType,
    iops: optionalInt(params, 'Iops'),
    throughput: optionalInt(params, 'Throughput'),
    ...encryption(params, zone, account),
    multiAttachEnabled,
    createTime: now,
    tags: new Map(tagSpecifications(params, 'volume').map((tag) => [tag.key, tag.value])),
    attachments: new Map(),
  };
}

const KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;

/** Encrypted (with KmsKeyId a key ARN, which needs Encrypted=true), as CreateVolume takes it. */
function encryption(params: ActionContext['params'], zone: string, account: string): Pick<SandboxVolume, 'encrypted' | 'kmsKeyId'> {
  const kmsKeyId = optional(params, 'KmsKeyId');
  const encrypted = optionalBool(params, 'Encrypted') ?? false;
  // Encrypted alone: the account's aws/ebs key, which EC2 names by its key ARN as it names any other.
  if (kmsKeyId === undefined) return encrypted ? { encrypted, kmsKeyId: awsManagedEbsKeyArn(regionOfZone(zone), account) } : { encrypted };
  if (!encrypted) throw new Ec2Error('InvalidParameterDependency', 'The parameter KmsKeyId requires the parameter Encrypted to be set.');
  if (!KEY_ARN.test(kmsKeyId))
    throw ec2Errors.invalidParameter(`Value (${kmsKeyId}) for parameter KmsKeyId is invalid. Expected a KMS key ARN.`);
  return { encrypted, kmsKeyId };
}

function deleteVolume({ params, world }: ActionContext) {
  const volume = getVolume(world, required(params, 'VolumeId'));
  const attachment = volume.attachments.values().next().value;
  if (attachment) throw ec2Errors.volumeAttached(volume.volumeId, attachment.instanceId);
  world.volumes.delete(volume.volumeId);
  return { return: true };
}

const VOLUME_FILTERS = [
  'attachment.instance-id',
  'attachment.status',
  'attachment.device',
  'attachment.delete-on-termination',
  'volume-id',
  'status',
  'availability-zone',
  'volume-type',
  'multi-attach-enabled',
  'size',
] as const;

function volumeField(world: World, now: number) {
  return (volume: SandboxVolume, name: string): string[] => {
    const attachments = [...volume.attachments.values()];
    switch (name) {
      case 'attachment.instance-id':
        return attachments.map((a) => a.instanceId);
      case 'attachment.status':
        return attachments.map((a) => attachmentState(a, now, world.config.delays));
      case 'attachment.device':
        return attachments.map((a) => a.device);
      case 'attachment.delete-on-termination':
        return attachments.map((a) => String(a.deleteOnTermination));
      case 'volume-id':
        return [volume.volumeId];
      case 'status':
        return [volumeStatus(volume)];
      case 'availability-zone':
        return [volume.zone];
      case 'volume-type':
        return [volume.volumeType];
      case 'multi-attach-enabled':
        return [String(volume.multiAttachEnabled)];
      case 'size':
        return [String(volume.size)];
      default:
        return tagField(volume.tags, name);
    }
  };
}

function describeVolumes({ params, world, now }: ActionContext) {
  const ids = list(params, 'VolumeId');
  const maxResults = optionalInt(params, 'MaxResults');
  if (ids.length > 0 && maxResults !== undefined) {
    throw ec2Errors.combination('The parameter volumeSet cannot be used with the parameter maxResults');
  }
  const candidates =
    ids.length > 0 ? getAll(ids, world.volumes, ec2Errors.volumeNotFound, world.config.notFoundNamesEveryId) : [...world.volumes.values()];
  candidates.sort((a, b) => a.volumeId.localeCompare(b.volumeId));
  const matching = applyFilters(candidates, filters(params), volumeField(world, now), VOLUME_FILTERS);
  const page = paginate(matching, maxResults, optional(params, 'NextToken'), { min: 5, max: 500 });
  return {
    volumeSet: itemSet(page.items.map((volume) => volumeItem(volume, now, world.config.delays))),
    nextToken: page.nextToken,
  };
}

export const volumeActions: Record<string, ActionDefinition> = {
  CreateVolume: { category: 'mutating', handle: createVolume },
  DeleteVolume: { category: 'mutating', handle: deleteVolume },
  DescribeVolumes: { category: 'nonMutating', handle: describeVolumes },
};
