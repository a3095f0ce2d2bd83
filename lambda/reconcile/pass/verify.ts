/**
 * Verification against EC2 (DESIGN §4 step 3): DescribeVolumes and DescribeInstances of the targets
 * the core chose (core/verification.ts), both batched by the adapter; what EC2 says is written onto
 * the records. A failure leaves the pass unverified, never wrong.
 */
import pLimit from 'p-limit';
import type { InstanceId, InstanceState, Observations, VolumeId, VolumeObservation } from '../../core/types.js';
import type { SeenInstance } from '../../ports/block-storage.js';
import type { PassContext } from './state.js';
import { applyVolumeObservation } from './observe.js';

/** DynamoDB writes one pass keeps in flight while writing down what EC2 says (verification, takeover). */
export const WRITE_CONCURRENCY = 8;

export async function verifyAgainstEc2(
  ctx: PassContext,
  volumeIds: VolumeId[],
  instanceIds: InstanceId[],
): Promise<Observations | undefined> {
  let observations: Required<Observations>;
  // What EC2 answers may be as old as the request: the look is dated when it is sent.
  const at = ctx.deps.clock();
  try {
    const [volumes, instances] = await Promise.all([
      volumeIds.length > 0 ? ctx.deps.blockStorage.describeVolumes(volumeIds) : Promise.resolve(new Map<VolumeId, VolumeObservation>()),
      instanceIds.length > 0
        ? ctx.deps.blockStorage.observeInstances(instanceIds)
        : Promise.resolve(new Map<InstanceId, SeenInstance | 'missing'>()),
    ]);
    observations = { volumes, instances: statesOf(instances) };
    for (const [id, instance] of instances) if (instance !== 'missing') ctx.seenInstances.set(id, { instance, at });
  } catch (error) {
    ctx.deps.log.warn('verification against EC2 failed; planning without it', { error: String(error) });
    return undefined;
  }
  // A takeover's steps may have asked about other volumes already this pass: their answers stay.
  ctx.observations = {
    volumes: new Map([...(ctx.observations.volumes ?? []), ...observations.volumes]),
    instances: observations.instances,
  };
  const limit = pLimit(WRITE_CONCURRENCY);
  await Promise.all([...observations.volumes.values()].map((o) => limit(() => applyVolumeObservation(ctx, o))));
  return observations;
}

function statesOf(seen: Map<InstanceId, SeenInstance | 'missing'>): Map<InstanceId, InstanceState | 'missing'> {
  return new Map([...seen].map(([id, instance]) => [id, instance === 'missing' ? 'missing' : (instance.state ?? 'missing')]));
}
