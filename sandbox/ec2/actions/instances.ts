/** RunInstances, DescribeInstances, StopInstances, StartInstances, TerminateInstances. */
import { ec2Errors } from '../protocol/errors.js';
import { filters, list, optional, optionalInt, required, tagSpecifications, type Params } from '../protocol/form.js';
import { itemSet, timestamp, type XmlObject } from '../protocol/xml.js';
import { attachmentState, attachmentsByInstance, changeInstanceState } from '../state/lifecycle.js';
import { getAll } from '../state/lookup.js';
import {
  INSTANCE_STATE_CODES,
  newId,
  type InstanceStateName,
  type SandboxAttachment,
  type SandboxInstance,
  type World,
} from '../state/model.js';
import type { ActionContext, ActionDefinition } from './context.js';
import { registeredImage } from './images.js';
import { applyFilters, paginate, tagField } from './query.js';
import { tagSet } from './render.js';

const ROOT_DEVICE = '/dev/xvda';

function stateXml(state: InstanceStateName): XmlObject {
  return { code: INSTANCE_STATE_CODES[state], name: state };
}

function launchOne(world: World, params: Params, reservationId: string, now: number): SandboxInstance {
  const zone = optional(params, 'Placement.AvailabilityZone') ?? world.config.defaultZone;
  const instanceId = newId('i');
  const rootVolumeId = newId('vol');
  world.volumes.set(rootVolumeId, {
    volumeId: rootVolumeId,
    zone,
    size: 8,
    volumeType: 'gp3',
    encrypted: false,
    multiAttachEnabled: false,
    createTime: now,
    tags: new Map(tagSpecifications(params, 'volume').map((tag) => [tag.key, tag.value])),
    attachments: new Map([
      [
        instanceId,
        {
          volumeId: rootVolumeId,
          instanceId,
          device: ROOT_DEVICE,
          attachTime: now,
          deleteOnTermination: true,
          phase: 'attach' as const,
          since: now - world.config.delays.attachMs,
          stuck: false,
        },
      ],
    ]),
  });
  return {
    instanceId,
    reservationId,
    zone,
    rootVolumeId,
    imageId: required(params, 'ImageId'),
    instanceType: optional(params, 'InstanceType') ?? 'm5.large',
    state: 'pending',
    since: now,
    launchTime: now,
    rootDeviceName: ROOT_DEVICE,
    networkInterfaces: world.config.networkInterfacesPerInstance,
    tags: new Map(tagSpecifications(params, 'instance').map((tag) => [tag.key, tag.value])),
  };
}

function runInstances({ params, world, now }: ActionContext) {
  registeredImage(world, required(params, 'ImageId'));
  const token = optional(params, 'ClientToken');
  const previous = token === undefined ? undefined : world.clientTokens.get(token);
  const minCount = optionalInt(params, 'MinCount') ?? 1;
  const maxCount = optionalInt(params, 'MaxCount') ?? minCount;
  if (minCount < 1 || maxCount < minCount) throw ec2Errors.invalidParameter(`Invalid MinCount ${minCount} / MaxCount ${maxCount}.`);
  const reservationId = newId('r');
  const instances = previous
    ? previous.flatMap((id) => world.instances.get(id) ?? [])
    : Array.from({ length: maxCount }, () => launchOne(world, params, reservationId, now));
  for (const instance of instances) world.instances.set(instance.instanceId, instance);
  if (token !== undefined)
    world.clientTokens.set(
      token,
      instances.map((instance) => instance.instanceId),
    );
  const attachmentsOf = attachmentsByInstance(world);
  return {
    ...reservationFields(world, instances[0]?.reservationId ?? reservationId),
    instancesSet: itemSet(instances.map((i) => instanceItem(world, attachmentsOf, i, now))),
  };
}

function reservationFields(world: World, reservationId: string): XmlObject {
  return { reservationId, ownerId: world.config.ownerId, groupSet: '' };
}

/** `attachmentsOf`: the instance's attachments, indexed once per answer (lifecycle.ts `attachmentsByInstance`). */
type AttachmentsOf = (instanceId: string) => SandboxAttachment[];

function instanceItem(world: World, attachmentsOf: AttachmentsOf, instance: SandboxInstance, now: number): XmlObject {
  const mappings = attachmentsOf(instance.instanceId).map((attachment) => {
    const state = attachmentState(attachment, now, world.config.delays);
    return {
      deviceName: attachment.device,
      ebs: {
        volumeId: attachment.volumeId,
        status: state === 'busy' ? 'detaching' : state,
        attachTime: timestamp(attachment.attachTime),
        deleteOnTermination: attachment.deleteOnTermination,
      },
    };
  });
  return {
    instanceId: instance.instanceId,
    imageId: instance.imageId,
    instanceState: stateXml(instance.state),
    privateDnsName: '',
    dnsName: '',
    amiLaunchIndex: 0,
    instanceType: instance.instanceType,
    launchTime: timestamp(instance.launchTime),
    placement: { availabilityZone: instance.zone, tenancy: 'default' },
    rootDeviceType: 'ebs',
    rootDeviceName: instance.rootDeviceName,
    blockDeviceMapping: itemSet(mappings),
    tagSet: tagSet(instance.tags),
  };
}

const INSTANCE_FILTERS = [
  'instance-id',
  'instance-state-name',
  'availability-zone',
  'instance-type',
  'block-device-mapping.volume-id',
  'block-device-mapping.device-name',
] as const;

function instanceField(attachmentsOf: AttachmentsOf) {
  return (instance: SandboxInstance, name: string): string[] => {
    const attachments = () => attachmentsOf(instance.instanceId);
    switch (name) {
      case 'instance-id':
        return [instance.instanceId];
      case 'instance-state-name':
        return [instance.state];
      case 'availability-zone':
        return [instance.zone];
      case 'instance-type':
        return [instance.instanceType];
      case 'block-device-mapping.volume-id':
        return attachments().map((a) => a.volumeId);
      case 'block-device-mapping.device-name':
        return attachments().map((a) => a.device);
      default:
        return tagField(instance.tags, name);
    }
  };
}

function describeInstances({ params, world, now }: ActionContext) {
  const ids = list(params, 'InstanceId');
  const maxResults = optionalInt(params, 'MaxResults');
  if (ids.length > 0 && maxResults !== undefined) {
    throw ec2Errors.combination('The parameter instancesSet cannot be used with the parameter maxResults');
  }
  const candidates =
    ids.length > 0
      ? getAll(ids, world.instances, ec2Errors.instanceNotFound, world.config.notFoundNamesEveryId)
      : [...world.instances.values()];
  candidates.sort((a, b) => a.instanceId.localeCompare(b.instanceId));
  const attachmentsOf = attachmentsByInstance(world);
  const matching = applyFilters(candidates, filters(params), instanceField(attachmentsOf), INSTANCE_FILTERS);
  const page = paginate(matching, maxResults, optional(params, 'NextToken'), { min: 5, max: 1000 });
  const byReservation = Map.groupBy(page.items, (instance) => instance.reservationId);
  const reservations = [...byReservation].map(([reservationId, instances]) => ({
    ...reservationFields(world, reservationId),
    instancesSet: itemSet(instances.map((instance) => instanceItem(world, attachmentsOf, instance, now))),
  }));
  return { reservationSet: itemSet(reservations), nextToken: page.nextToken };
}

/** How a state-change action moves each current state; undefined: EC2 refuses (IncorrectInstanceState). */
type Transition = Partial<Record<InstanceStateName, InstanceStateName>>;

const STOP: Transition = { pending: 'stopping', running: 'stopping', stopping: 'stopping', stopped: 'stopped' };
const START: Transition = { stopped: 'pending', pending: 'pending', running: 'running' };
const TERMINATE: Transition = {
  pending: 'shutting-down',
  running: 'shutting-down',
  stopping: 'shutting-down',
  stopped: 'shutting-down',
  'shutting-down': 'shutting-down',
  terminated: 'terminated',
};

function changeStates(transition: Transition) {
  return ({ params, world, now }: ActionContext) => {
    const ids = list(params, 'InstanceId');
    if (ids.length === 0) throw ec2Errors.missingParameter('InstanceId');
    const instances = getAll(ids, world.instances, ec2Errors.instanceNotFound);
    for (const instance of instances) {
      if (transition[instance.state] === undefined) throw ec2Errors.instanceState(instance.instanceId, instance.state);
    }
    const changes = instances.map((instance) => {
      const previous = instance.state;
      const next = transition[previous] as InstanceStateName;
      if (next !== previous) changeInstanceState(instance, next, now);
      return { instanceId: instance.instanceId, currentState: stateXml(next), previousState: stateXml(previous) };
    });
    return { instancesSet: itemSet(changes) };
  };
}

export const instanceActions: Record<string, ActionDefinition> = {
  RunInstances: { category: 'mutating', handle: runInstances },
  DescribeInstances: { category: 'nonMutating', handle: describeInstances },
  StopInstances: { category: 'mutating', handle: changeStates(STOP) },
  StartInstances: { category: 'mutating', handle: changeStates(START) },
  TerminateInstances: { category: 'mutating', handle: changeStates(TERMINATE) },
};
