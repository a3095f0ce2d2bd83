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

/** EC2's answers about some volumes and instances, asked for at `at` (possibly before the records are read). */
export interface Ec2Look {
  at: number;
  answers: Promise<[Map<VolumeId, VolumeObservation>, Map<InstanceId, SeenInstance | 'missing'>]>;
}

/** Asks EC2 now; the answers are applied by `verifyAgainstEc2` once the records they go onto are read. */
export function askEc2(
  deps: Pick<PassContext['deps'], 'blockStorage' | 'clock'>,
  volumeIds: VolumeId[],
  instanceIds: InstanceId[],
): Ec2Look {
  // What EC2 answers may be as old as the request: the look is dated when it is sent.
  const at = deps.clock();
  const answers = Promise.all([
    volumeIds.length > 0 ? deps.blockStorage.describeVolumes(volumeIds) : Promise.resolve(new Map<VolumeId, VolumeObservation>()),
    instanceIds.length > 0
      ? deps.blockStorage.observeInstances(instanceIds)
      : Promise.resolve(new Map<InstanceId, SeenInstance | 'missing'>()),
  ]);
  // Awaited by verifyAgainstEc2, which reports a failure; never an unhandled rejection meanwhile.
  answers.catch(() => undefined);
  return { at, answers };
}

export async function verifyAgainstEc2(
  ctx: PassContext,
  volumeIds: VolumeId[],
  instanceIds: InstanceId[],
  look: Ec2Look = askEc2(ctx.deps, volumeIds, instanceIds),
): Promise<Observations | undefined> {
  let observations: Required<Observations>;
  const { at } = look;
  try {
    const [volumes, instances] = await look.answers;
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
