/**
 * Verification against EC2 (DESIGN §4 step 3): DescribeVolumes of every volume in the actual
 * and desired state and DescribeInstances of the nodes' instances, both batched by the adapter;
 * what EC2 says is written onto the records. A failure leaves the pass unverified, never wrong.
 */
import pLimit from 'p-limit';
import type { InstanceId, InstanceState, Observations, VolumeId, VolumeObservation } from '../core/types.js';
import type { PassContext } from './context.js';
import { applyVolumeObservation, nodesByInstance } from './observe.js';

const WRITE_CONCURRENCY = 8;

export async function verifyAgainstEc2(ctx: PassContext, volumeIds: VolumeId[], instanceIds: InstanceId[]): Promise<Observations | undefined> {
  let observations: Required<Observations>;
  try {
    const [volumes, instances] = await Promise.all([
      volumeIds.length > 0 ? ctx.deps.blockStorage.describeVolumes(volumeIds) : Promise.resolve(new Map<VolumeId, VolumeObservation>()),
      instanceIds.length > 0 ? ctx.deps.blockStorage.describeInstances(instanceIds) : Promise.resolve(new Map<InstanceId, InstanceState | 'missing'>()),
    ]);
    observations = { volumes, instances };
  } catch (error) {
    ctx.deps.log.warn('verification against EC2 failed; planning without it', { error: String(error) });
    return undefined;
  }
  ctx.observations = observations;
  const byInstance = nodesByInstance(ctx.desired);
  const limit = pLimit(WRITE_CONCURRENCY);
  await Promise.all([...observations.volumes.values()].map((o) => limit(() => applyVolumeObservation(ctx, o, byInstance))));
  return observations;
}

/** What a full pass verifies: every volume it knows of and every instance behind a node or an attachment. */
export function verificationTargets(ctx: PassContext): { volumeIds: VolumeId[]; instanceIds: InstanceId[] } {
  const volumeIds = new Set<VolumeId>([...ctx.actual.keys(), ...ctx.desired.attachments.map((a) => a.volumeId)]);
  return { volumeIds: [...volumeIds].sort(), instanceIds: instancesOf(ctx) };
}

/**
 * Between sync periods a pass still asks EC2 about the volumes in flux (an attachment attaching,
 * detaching or uncertain): they are few, and they are the ones a plan must not judge on the
 * record's word alone (a stuck attach is detached only if EC2 says it is still attaching).
 */
export function unsettledTargets(ctx: PassContext): { volumeIds: VolumeId[]; instanceIds: InstanceId[] } {
  const volumeIds: VolumeId[] = [];
  const instanceIds = new Set<InstanceId>();
  for (const record of ctx.actual.values()) {
    const unsettled = Object.values(record.attachments).filter((a) => a.state !== 'attached');
    if (unsettled.length === 0) continue;
    volumeIds.push(record.volumeId);
    for (const a of unsettled) instanceIds.add(a.instanceId);
  }
  return { volumeIds: volumeIds.sort(), instanceIds: [...instanceIds].sort() };
}

/** The instances behind the pass's nodes and recorded attachments (and any named besides), sorted. */
export function instancesOf(ctx: PassContext, also: InstanceId[] = []): InstanceId[] {
  const instanceIds = new Set<InstanceId>(also);
  for (const view of ctx.desired.nodes.values()) if (view.instanceId !== undefined) instanceIds.add(view.instanceId);
  for (const record of ctx.actual.values()) for (const a of Object.values(record.attachments)) instanceIds.add(a.instanceId);
  return [...instanceIds].sort();
}
