/**
 * What EC2 said this pass, applied to the actual state. Absent observations mean "not asked"
 * and change nothing; present ones correct the picture: an attachment EC2 no longer shows is
 * not detached again, and an attachment EC2 shows elsewhere blocks an exclusive attach.
 */
import type { PlanConfig } from './config.js';
import type { ActualAttachment, Ec2Attachment, InstanceId, InstanceState, Observations, VolumeObservation } from './types.js';

/** False when EC2 was asked about the volume and shows no attachment to this instance. */
export function ec2ShowsAttachment(attachment: Pick<ActualAttachment, 'instanceId'>, observation: VolumeObservation | undefined): boolean {
  if (!observation) return true;
  if (!observation.exists) return false;
  return observation.attachments.some((a) => a.instanceId === attachment.instanceId && a.state !== 'detached');
}

/** Instances EC2 shows the volume attached (or attaching, detaching, busy) to. */
export function observedInstances(observation: VolumeObservation | undefined): InstanceId[] {
  if (!observation?.exists) return [];
  return observation.attachments.filter((a) => a.state !== 'detached').map((a) => a.instanceId);
}

export function instanceStateOf(observations: Observations, instanceId: InstanceId): InstanceState | 'missing' | undefined {
  return observations.instances?.get(instanceId);
}

/** EC2 no longer runs (or knows) the instance: nothing can be writing to its volumes. */
export function instanceGone(state: InstanceState | 'missing' | undefined): boolean {
  return state === 'terminated' || state === 'missing';
}

/** What AttachVolume answered for an attach it started: the device, and EC2's AttachTime when given. */
export interface StartedAttachment {
  device: string;
  attachTime?: number;
}

/**
 * DescribeVolumes is eventually consistent: just after a detach it may still show the attachment
 * from before it. After AttachVolume started one on this instance, a view on another device, or
 * begun before EC2's AttachTime in that answer (both EC2's clock), is such a leftover, not the
 * attachment being waited for. A view lacking either fact is not held against it.
 */
export function leftoverAttachment(seen: Partial<Pick<Ec2Attachment, 'device' | 'attachTime'>>, started: StartedAttachment): boolean {
  if (seen.device !== undefined && seen.device !== started.device) return true;
  return seen.attachTime !== undefined && started.attachTime !== undefined && seen.attachTime < started.attachTime;
}

/** How long EC2 has been attaching: from its AttachTime when it gives one, else from `fallbackSince`. */
export function attachingFor(seen: Pick<Ec2Attachment, 'attachTime'>, fallbackSince: number, now: number): number {
  return now - (seen.attachTime ?? fallbackSince);
}

/**
 * DESIGN §8: an attach EC2 still shows `attaching` after `stuckAttachMs` will not finish; it is
 * detached and retried from scratch, and waiting for it longer cannot help.
 */
export function attachStuck(
  seen: Pick<Ec2Attachment, 'state' | 'attachTime'>,
  fallbackSince: number,
  now: number,
  config: Pick<PlanConfig, 'stuckAttachMs'>,
): boolean {
  return seen.state === 'attaching' && attachingFor(seen, fallbackSince, now) > config.stuckAttachMs;
}
