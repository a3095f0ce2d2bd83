/**
 * AttachVolume and DetachVolume, mapped to the port's outcomes. Neither throws: every failure is
 * classified (errors.ts). The EC2 client paces both per attempt (client.ts `addBudget`).
 */
import { AttachVolumeCommand, DetachVolumeCommand, type EC2Client } from '@aws-sdk/client-ec2';
import type { AttachOutcome, AttachRequest, DetachOutcome, DetachRequest } from '../../ports/block-storage.js';
import type { Ec2Reader } from './describe.js';
import { freeDeviceNames } from './devices.js';
import { attachOutcomeOf, classifyEc2Error, detachOutcomeOf, type ClassifiedError } from './errors.js';

export interface AttachDetachDeps {
  client: EC2Client;
  reader: Ec2Reader;
}

const GONE_STATES = new Set(['shutting-down', 'terminated']);

export async function attachVolume(deps: AttachDetachDeps, request: AttachRequest): Promise<AttachOutcome> {
  const { volumeId, instanceId } = request;
  let instance;
  try {
    instance = request.seen ?? (await deps.reader.describeInstance(instanceId));
  } catch (error) {
    return attachOutcomeOf(classifyEc2Error(error), '');
  }
  if (!instance || GONE_STATES.has(instance.state ?? '')) {
    return { kind: 'instance-gone', message: `instance ${instanceId} is ${instance?.state ?? 'unknown to EC2'}` };
  }
  // Already in the instance's mappings: attached or attaching here, so nothing to call (idempotent).
  const existing = instance.mappings.find((mapping) => mapping.volumeId === volumeId);
  if (existing) return { kind: 'already-attached', device: existing.device };
  const device = await request.devices.claim(freeDeviceNames(instance.mappings.map((mapping) => mapping.device)));
  if (device === undefined) return { kind: 'limit-reached', message: `no free device name on instance ${instanceId}` };
  return sendAttach(deps, request, device);
}

async function sendAttach(deps: AttachDetachDeps, request: AttachRequest, device: string): Promise<AttachOutcome> {
  const { volumeId, instanceId } = request;
  try {
    const output = await deps.client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: device }));
    const started = { kind: 'started' as const, device: output.Device ?? device };
    return output.AttachTime === undefined ? started : { ...started, attachTime: output.AttachTime.getTime() };
  } catch (error) {
    const classified = classifyEc2Error(error);
    if (classified.reason === 'device-in-use') await request.devices.refused(device);
    // A timed-out call may still attach on this name: it stays claimed until the operation settles.
    else if (classified.reason !== 'transient') await request.devices.unused(device);
    if (classified.reason === 'volume-in-use') return resolveInUse(deps, volumeId, instanceId, classified);
    return attachOutcomeOf(classified, device);
  }
}

/**
 * EC2 answers `VolumeInUse` ("vol-… is already attached to an instance") both when the volume is
 * attached to another instance and when it is already attached to this one; DescribeVolumes tells which.
 */
async function resolveInUse(deps: AttachDetachDeps, volumeId: string, instanceId: string, inUse: ClassifiedError): Promise<AttachOutcome> {
  let observation;
  try {
    observation = (await deps.reader.describeVolumes([volumeId])).get(volumeId);
  } catch (error) {
    const classified = classifyEc2Error(error);
    return classified.reason === 'throttled'
      ? { kind: 'throttled', message: classified.message }
      : { kind: 'transient', message: `${inUse.message}; then ${classified.message}` };
  }
  if (!observation?.exists) return { kind: 'volume-gone', message: inUse.message };
  const here = observation.attachments.find((attachment) => attachment.instanceId === instanceId && attachment.state !== 'detached');
  if (here) return { kind: 'already-attached', device: here.device };
  const elsewhere = observation.attachments
    .filter((attachment) => attachment.state !== 'detached')
    .map((attachment) => attachment.instanceId);
  // Detached between the two calls: nothing holds it now, so a retry may succeed.
  if (elsewhere.length === 0) return { kind: 'transient', message: `${inUse.message} (no attachment seen afterwards)` };
  return { kind: 'attached-elsewhere', instanceIds: elsewhere, message: inUse.message };
}

export async function detachVolume(deps: AttachDetachDeps, request: DetachRequest): Promise<DetachOutcome> {
  try {
    // Force only when the caller says so (instance gone or node out of service, DESIGN §8).
    const force = request.force ? { Force: true } : {};
    await deps.client.send(new DetachVolumeCommand({ VolumeId: request.volumeId, InstanceId: request.instanceId, ...force }));
    return { kind: 'started' };
  } catch (error) {
    return detachOutcomeOf(classifyEc2Error(error));
  }
}
