/**
 * Timer-free transitions: each request first settles the world at the clock's `now`, applying
 * every transition whose delay has passed (pending → running, stopping → stopped,
 * shutting-down → terminated, attaching → attached, detaching → gone).
 */
import type { Delays, InstanceStateName, SandboxAttachment, SandboxInstance, World } from './model.js';

export type AttachmentStateName = 'attaching' | 'attached' | 'detaching' | 'detached' | 'busy';

export function attachmentState(attachment: SandboxAttachment, now: number, delays: Delays): AttachmentStateName {
  if (attachment.phase === 'attach') {
    if (attachment.stuck) return 'attaching';
    return now - attachment.since >= delays.attachMs ? 'attached' : 'attaching';
  }
  if (attachment.stuck) return 'busy';
  return now - attachment.since >= delays.detachMs ? 'detached' : 'detaching';
}

const NEXT_STATE: Partial<Record<InstanceStateName, { next: InstanceStateName; delay: keyof Delays }>> = {
  pending: { next: 'running', delay: 'instanceStartMs' },
  stopping: { next: 'stopped', delay: 'instanceStopMs' },
  'shutting-down': { next: 'terminated', delay: 'instanceTerminateMs' },
};

export function settle(world: World): number {
  const now = world.clock.now();
  for (const instance of world.instances.values()) settleInstance(world, instance, now);
  for (const volume of world.volumes.values()) {
    for (const [instanceId, attachment] of volume.attachments) {
      if (attachmentState(attachment, now, world.config.delays) === 'detached') volume.attachments.delete(instanceId);
    }
  }
  return now;
}

function settleInstance(world: World, instance: SandboxInstance, now: number): void {
  const step = NEXT_STATE[instance.state];
  if (step) {
    const at = instance.since + world.config.delays[step.delay];
    if (now < at) return;
    instance.state = step.next;
    instance.since = at;
    if (step.next === 'terminated') releaseVolumes(world, instance);
  }
  if (instance.state === 'terminated' && now - instance.since >= world.config.delays.terminatedRetentionMs) {
    world.instances.delete(instance.instanceId);
  }
}

/** Termination detaches every volume; those marked DeleteOnTermination (the root, by default) are deleted. */
function releaseVolumes(world: World, instance: SandboxInstance): void {
  for (const volume of [...world.volumes.values()]) {
    const attachment = volume.attachments.get(instance.instanceId);
    if (!attachment) continue;
    volume.attachments.delete(instance.instanceId);
    if (attachment.deleteOnTermination && volume.attachments.size === 0) world.volumes.delete(volume.volumeId);
  }
}

/** Attachments of one instance that still occupy a device name and a slot. */
export function attachmentsOf(world: World, instanceId: string): SandboxAttachment[] {
  const found: SandboxAttachment[] = [];
  for (const volume of world.volumes.values()) {
    const attachment = volume.attachments.get(instanceId);
    if (attachment) found.push(attachment);
  }
  return found;
}

/**
 * Every instance's attachments from one walk of the volumes, in `attachmentsOf`'s order: an answer
 * about many instances (DescribeInstances) would otherwise walk every volume once per instance,
 * a cost that grows with the account's volumes, which real EC2's does not.
 */
export function attachmentsByInstance(world: World): (instanceId: string) => SandboxAttachment[] {
  const byInstance = new Map<string, SandboxAttachment[]>();
  for (const volume of world.volumes.values()) {
    for (const [instanceId, attachment] of volume.attachments) {
      const found = byInstance.get(instanceId);
      if (found === undefined) byInstance.set(instanceId, [attachment]);
      else found.push(attachment);
    }
  }
  return (instanceId) => byInstance.get(instanceId) ?? [];
}

export function changeInstanceState(instance: SandboxInstance, state: InstanceStateName, now: number): void {
  instance.state = state;
  instance.since = now;
}
