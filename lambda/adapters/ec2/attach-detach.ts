/**
 * AttachVolume and DetachVolume, mapped to the port's outcomes. Neither throws: every failure is
 * classified (errors.ts). The EC2 client paces both per attempt (client.ts `addBudget`). A request
 * with a go-ahead (`ready`) is prepared while the caller's last steps are in flight: the device
 * name claimed and the first attempt's token taken beside them, each one round trip to the store,
 * so AttachVolume leaves one round trip after the VolumeAttachment's finalizer instead of three.
 */
import { AttachVolumeCommand, DetachVolumeCommand, type EC2Client } from '@aws-sdk/client-ec2';
import type { AttachOutcome, AttachRequest, DetachOutcome, DetachRequest, GoAhead } from '../../ports/block-storage.js';
import { prepay } from './client.js';
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
  const candidates = freeDeviceNames(instance.mappings.map((mapping) => mapping.device));
  // The input the token is taken for: the name is filled in once claimed (the same object is sent).
  const input = { VolumeId: volumeId, InstanceId: instanceId, Device: '' };
  const [device] = await Promise.all([request.devices.claim(candidates), request.ready && prepay(deps.client, 'AttachVolume', input)]);
  if (device === undefined) return { kind: 'limit-reached', message: `no free device name on instance ${instanceId}` };
  const why = await goAhead(request.ready);
  if (why !== undefined) {
    await request.devices.unused(device);
    return { kind: 'withheld', message: why };
  }
  input.Device = device;
  return sendAttach(deps, request, input);
}

/** Undefined to send; else why not (a rejected go-ahead withholds the call too: the adapter never throws). */
async function goAhead(ready: GoAhead | undefined): Promise<string | undefined> {
  try {
    return await ready;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function sendAttach(
  deps: AttachDetachDeps,
  request: AttachRequest,
  input: { VolumeId: string; InstanceId: string; Device: string },
): Promise<AttachOutcome> {
  const { volumeId, instanceId } = request;
  const device = input.Device;
  try {
    const output = await deps.client.send(new AttachVolumeCommand(input));
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
    const input = { VolumeId: request.volumeId, InstanceId: request.instanceId, ...force };
    const [why] = await Promise.all([goAhead(request.ready), request.ready && prepay(deps.client, 'DetachVolume', input)]);
    if (why !== undefined) return { kind: 'withheld', message: why };
    await deps.client.send(new DetachVolumeCommand(input));
    return { kind: 'started' };
  } catch (error) {
    return detachOutcomeOf(classifyEc2Error(error));
  }
}
