/** AttachVolume and DetachVolume, with EC2's checks in EC2's order. */
import { Ec2Error, ec2Errors } from '../protocol/errors.js';
import { optional, optionalBool, required } from '../protocol/form.js';
import { timestamp } from '../protocol/xml.js';
import { attachmentState, attachmentsOf } from '../state/lifecycle.js';
import { getInstance, getVolume } from '../state/lookup.js';
import { isNitro, type SandboxAttachment, type SandboxInstance, type SandboxVolume, type World } from '../state/model.js';
import type { ActionContext, ActionDefinition } from './context.js';

/** Names EC2 accepts for EBS on Linux: /dev/sd[a-z][1-15], /dev/xvd[a-z][a-z]. */
const DEVICE_NAME = /^\/dev\/(sd[a-z]([1-9]|1[0-5])?|xvd[a-z]{1,2})$/;

function takeSticky(flags: Set<string>, volumeId: string): boolean {
  if (flags.has('*')) return true;
  return flags.delete(volumeId);
}

function attachmentLimit(world: World, instance: SandboxInstance): { used: number; limit: number } {
  const volumes = attachmentsOf(world, instance.instanceId).length;
  const override = world.attachmentLimits.get(instance.instanceId);
  if (isNitro(instance.instanceType)) {
    return { used: volumes + instance.networkInterfaces, limit: override ?? world.config.nitroAttachmentSlots };
  }
  return { used: volumes, limit: override ?? world.config.xenVolumeLimit };
}

function checkMultiAttach(world: World, volume: SandboxVolume, instance: SandboxInstance): void {
  if (volume.attachments.has(instance.instanceId)) throw ec2Errors.volumeInUse(volume.volumeId);
  if (volume.attachments.size === 0) return;
  if (!volume.multiAttachEnabled || volume.attachments.size >= world.config.multiAttachMaxInstances) {
    throw ec2Errors.volumeInUse(volume.volumeId);
  }
  if (!isNitro(instance.instanceType)) {
    throw new Ec2Error('UnsupportedOperation', `Multi-Attach volume ${volume.volumeId} can only be attached to Nitro instances.`);
  }
}

function attachVolume({ params, world, now }: ActionContext) {
  const [volumeId, instanceId, device] = [required(params, 'VolumeId'), required(params, 'InstanceId'), required(params, 'Device')];
  const volume = getVolume(world, volumeId);
  const instance = getInstance(world, instanceId);
  if (instance.state !== 'running' && instance.state !== 'stopped') throw ec2Errors.instanceState(instance.instanceId, instance.state);
  if (volume.zone !== instance.zone) throw ec2Errors.zoneMismatch(volume.volumeId, instance.instanceId);
  if (!DEVICE_NAME.test(device)) throw ec2Errors.badDevice(device);
  checkMultiAttach(world, volume, instance);
  const taken = attachmentsOf(world, instance.instanceId).some((attachment) => attachment.device === device);
  if (taken || device === instance.rootDeviceName) throw ec2Errors.deviceInUse(device);
  const { used, limit } = attachmentLimit(world, instance);
  if (used >= limit) throw ec2Errors.attachmentLimit();
  const attachment: SandboxAttachment = {
    volumeId: volume.volumeId,
    instanceId: instance.instanceId,
    device,
    attachTime: now,
    deleteOnTermination: false,
    phase: 'attach',
    since: now,
    stuck: takeSticky(world.sticky.attach, volume.volumeId),
  };
  volume.attachments.set(instance.instanceId, attachment);
  return attachmentResponse(attachment, 'attaching');
}

function attachmentResponse(attachment: SandboxAttachment, status: string) {
  return {
    volumeId: attachment.volumeId,
    instanceId: attachment.instanceId,
    device: attachment.device,
    status,
    attachTime: timestamp(attachment.attachTime),
  };
}

function findAttachment(volume: SandboxVolume, instanceId: string | undefined, device: string | undefined): SandboxAttachment {
  if (volume.attachments.size === 0) throw ec2Errors.volumeState(volume.volumeId, 'available');
  if (instanceId === undefined && volume.attachments.size > 1) {
    throw ec2Errors.combination(`Volume ${volume.volumeId} is attached to several instances; InstanceId is required.`);
  }
  const attachment = instanceId === undefined ? [...volume.attachments.values()][0] : volume.attachments.get(instanceId);
  if (!attachment || (device !== undefined && device !== attachment.device)) {
    throw ec2Errors.attachmentNotFound(volume.volumeId, instanceId ?? attachment?.instanceId ?? '');
  }
  return attachment;
}

function detachVolume({ params, world, now }: ActionContext) {
  const volume = getVolume(world, required(params, 'VolumeId'));
  const attachment = findAttachment(volume, optional(params, 'InstanceId'), optional(params, 'Device'));
  const force = optionalBool(params, 'Force') ?? false;
  const instance = world.instances.get(attachment.instanceId);
  if (instance && instance.state === 'running' && attachment.device === instance.rootDeviceName) {
    throw new Ec2Error(
      'OperationNotPermitted',
      `The root volume ${volume.volumeId} cannot be detached from running instance ${instance.instanceId}.`,
    );
  }
  if (attachment.phase === 'detach') {
    // A repeated request leaves a detach in progress alone; Force frees one stuck `busy`.
    if (force && attachment.stuck) Object.assign(attachment, { stuck: false, since: now });
  } else {
    Object.assign(attachment, { phase: 'detach', since: now, stuck: !force && takeSticky(world.sticky.detach, volume.volumeId) });
  }
  const state = attachmentState(attachment, now, world.config.delays);
  return attachmentResponse(attachment, state === 'detached' ? 'detaching' : state);
}

export const attachmentActions: Record<string, ActionDefinition> = {
  AttachVolume: { category: 'mutating', handle: attachVolume },
  DetachVolume: { category: 'mutating', handle: detachVolume },
};
