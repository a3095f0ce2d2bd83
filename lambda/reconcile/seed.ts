/**
 * Taking over from kube-controller-manager: on the first full pass (no `seededAt`), the attachments
 * the core finds claimed by the cluster (core/takeover.ts) are recorded `uncertain`, one
 * compare-and-swap per volume; verification against EC2 in the same pass then settles each.
 */
import type { ClusterSnapshot } from '../core/kube.js';
import { takeoverSeeds } from '../core/takeover.js';
import { seedUncertain, type SeedInput, type Transition } from '../core/transitions.js';
import type { VolumeRecord } from '../core/types.js';
import type { PassContext } from './context.js';
import { writeRecord } from './records.js';

/** Seeds the actual state; returns how many (volume, node) claims were found. */
export async function seedFromCluster(ctx: PassContext, snapshot: ClusterSnapshot): Promise<number> {
  const byVolume = takeoverSeeds(ctx.desired.nodes, snapshot);
  const now = ctx.deps.clock();
  let claims = 0;
  let done = 0;
  for (const [volumeId, inputs] of byVolume) {
    claims += inputs.length;
    ctx.deps.progress?.('seeding', ++done, byVolume.size);
    const written = await writeRecord(ctx.deps.store, ctx.actual, volumeId, ctx.actual.get(volumeId), (record) =>
      seedAll(record, inputs, now),
    );
    if (!written.ok) ctx.deps.log.warn('could not seed volume', { volumeId, reason: written.reason });
  }
  return claims;
}

function seedAll(record: VolumeRecord | undefined, inputs: SeedInput[], now: number): Transition {
  let next = record;
  for (const input of inputs) {
    const seeded = seedUncertain(next, input, now);
    if (!seeded.ok) return seeded;
    next = seeded.record;
  }
  return { ok: true, record: next as VolumeRecord };
}
