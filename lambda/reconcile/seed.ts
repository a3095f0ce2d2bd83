/**
 * Taking over from kube-controller-manager: on the first full pass (no `seededAt`), every
 * attachment the cluster claims — node `status.volumesAttached` and attached VolumeAttachments —
 * is recorded as `uncertain`; verification against EC2 in the same pass then settles each.
 */
import type { ClusterSnapshot } from '../core/kube.js';
import { seedUncertain, type SeedInput } from '../core/transitions.js';
import type { VolumeId, VolumeRecord } from '../core/types.js';
import { ebsVolumeId, pvLookup, volumeOfNodeStatusName, volumeOfVolumeAttachment } from '../core/volume-sources.js';
import type { PassContext } from './context.js';
import { writeRecord } from './records.js';

/** Seeds the actual state; returns how many (volume, node) claims were found. */
export async function seedFromCluster(ctx: PassContext, snapshot: ClusterSnapshot): Promise<number> {
  const claims = [...claimsFromNodes(ctx), ...claimsFromVolumeAttachments(ctx, snapshot)];
  const byVolume = new Map<VolumeId, SeedInput[]>();
  for (const claim of claims) byVolume.set(claim.volumeId, [...(byVolume.get(claim.volumeId) ?? []), claim]);
  const now = ctx.deps.clock();
  for (const [volumeId, inputs] of byVolume) {
    const step = (record: VolumeRecord | undefined) => {
      let next = record;
      for (const input of inputs) {
        const seeded = seedUncertain(next, input, now);
        if (!seeded.ok) return seeded;
        next = seeded.record;
      }
      return { ok: true as const, record: next as VolumeRecord };
    };
    const written = await writeRecord(ctx.deps.store, ctx.actual, volumeId, ctx.actual.get(volumeId), step);
    if (!written.ok) ctx.deps.log.warn('could not seed volume', { volumeId, reason: written.reason });
  }
  return claims.length;
}

function claimsFromNodes(ctx: PassContext): SeedInput[] {
  const claims: SeedInput[] = [];
  for (const view of ctx.desired.nodes.values()) {
    if (!view.managed || view.instanceId === undefined) continue;
    for (const entry of view.volumesAttached) {
      const volumeId = volumeOfNodeStatusName(entry.name);
      if (volumeId === undefined) continue;
      claims.push({ volumeId, nodeName: view.name, instanceId: view.instanceId, device: entry.devicePath, reported: true });
    }
  }
  return claims;
}

function claimsFromVolumeAttachments(ctx: PassContext, snapshot: ClusterSnapshot): SeedInput[] {
  const pvNamed = pvLookup(snapshot.pvs);
  const claims: SeedInput[] = [];
  for (const va of snapshot.volumeAttachments) {
    if (va.status?.attached !== true) continue;
    const volumeId = ebsVolumeId(volumeOfVolumeAttachment(va, pvNamed));
    const instanceId = ctx.desired.nodes.get(va.spec.nodeName)?.instanceId;
    if (volumeId === undefined || instanceId === undefined) continue;
    const device = va.status.attachmentMetadata?.devicePath;
    claims.push({ volumeId, nodeName: va.spec.nodeName, instanceId, ...(device === undefined ? {} : { device }) });
  }
  return claims;
}
