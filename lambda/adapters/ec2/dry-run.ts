/**
 * The shadow's preflight: AttachVolume or DetachVolume with DryRun (EC2 API Reference: "Checks
 * whether you have the required permissions for the action, without actually making the request";
 * the answer is `DryRunOperation` or `UnauthorizedOperation`). IAM judges the real volume, instance
 * and device, so the role's tag conditions are EC2's own verdict. The client's budget paces these
 * as it paces the real calls (client.ts `addBudget` goes by command, DryRun or not). Never throws.
 */
import { AttachVolumeCommand, DetachVolumeCommand } from '@aws-sdk/client-ec2';
import type { PreflightOutcome, PreflightRequest } from '../../ports/block-storage.js';
import type { AttachDetachDeps } from './attach-detach.js';
import { freeDeviceNames } from './devices.js';
import { preflightOutcomeOf } from './errors.js';

export async function preflight(deps: AttachDetachDeps, request: PreflightRequest): Promise<PreflightOutcome> {
  const { volumeId, instanceId } = request;
  if (request.action === 'detach') {
    const call = `DetachVolume ${volumeId} from ${instanceId}${request.device === undefined ? '' : ` (${request.device})`}`;
    const device = request.device === undefined ? {} : { Device: request.device };
    return ask(deps, new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, ...device, DryRun: true }), call);
  }
  let seen;
  try {
    seen = request.seen ?? (await deps.reader.describeInstance(instanceId));
  } catch (error) {
    return preflightOutcomeOf(error, `AttachVolume ${volumeId} to ${instanceId}`);
  }
  if (seen === undefined)
    return { kind: 'unanswered', call: `AttachVolume ${volumeId} to ${instanceId}`, message: 'the instance is unknown to EC2' };
  // The name the real attach would try first (it claims it then; a dry run holds nothing).
  const device = freeDeviceNames(seen.mappings.map((mapping) => mapping.device))[0];
  const call = `AttachVolume ${volumeId} to ${instanceId} as ${device ?? '(no free device name)'}`;
  if (device === undefined) return { kind: 'unanswered', call, message: 'no free device name on the instance' };
  return ask(deps, new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: device, DryRun: true }), call);
}

async function ask(deps: AttachDetachDeps, command: AttachVolumeCommand | DetachVolumeCommand, call: string): Promise<PreflightOutcome> {
  try {
    // EC2 answers a dry run with an error, always: a plain answer would mean the call was made.
    await deps.client.send(command as AttachVolumeCommand);
    return { kind: 'unanswered', call, message: 'EC2 answered a DryRun request without DryRunOperation' };
  } catch (error) {
    return preflightOutcomeOf(error, call);
  }
}
