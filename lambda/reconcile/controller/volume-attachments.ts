/**
 * Carrying out the VolumeAttachment changes the core decides (core/volume-attachments.ts): after
 * each attach, detach or resolve for its pair, and at the end of a pass for every touched pair
 * (plus, in a full pass, whatever the listed objects show out of line). Writes are best effort.
 */
import type { ClusterSnapshot } from '../../core/kube.js';
import type { NodeName, VolumeId } from '../../core/types.js';
import {
  indexVolumeAttachments,
  volumeAttachmentChange,
  volumeAttachmentChanges,
  type VolumeAttachmentChange,
} from '../../core/volume-attachments.js';
import type { VolumeAttachmentRef } from '../../ports/cluster.js';
import { bestEffort, type PassContext } from '../pass/context.js';

function volumeAttachmentRef(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName): VolumeAttachmentRef {
  const pvName = ctx.pvNames.get(volumeId);
  return pvName === undefined ? { volumeId, nodeName } : { volumeId, nodeName, pvName };
}

async function apply(ctx: PassContext, change: VolumeAttachmentChange): Promise<void> {
  const { volumeId, nodeName } = change;
  const ref = volumeAttachmentRef(ctx, volumeId, nodeName);
  const cluster = ctx.deps.cluster;
  switch (change.change) {
    case 'report-attached':
      await bestEffort(ctx, `report ${volumeId} attached on ${nodeName}`, () =>
        cluster.upsertVolumeAttachment(ref, { attached: true, devicePath: change.devicePath }),
      );
      return;
    case 'report-not-attached':
      await bestEffort(ctx, `report ${volumeId} not attached on ${nodeName}`, () =>
        cluster.upsertVolumeAttachment(ref, { attached: false }),
      );
      return;
    case 'delete':
      await bestEffort(ctx, `delete VolumeAttachment of ${volumeId} on ${nodeName}`, () => cluster.deleteVolumeAttachment(ref));
  }
}

/** Brings one (volume, node) VolumeAttachment in line right after its attachment changed. */
export async function syncVolumeAttachment(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName): Promise<void> {
  const change = volumeAttachmentChange(ctx, volumeId, nodeName);
  if (change !== undefined) await apply(ctx, change);
}

/**
 * End of a pass: every pair touched this pass; with `listed` (a full pass that read every
 * VolumeAttachment) also every object out of line with the actual state.
 */
export async function reportVolumeAttachments(ctx: PassContext, listed: ClusterSnapshot | undefined): Promise<void> {
  const existing = listed === undefined ? undefined : indexVolumeAttachments(listed);
  const changes = volumeAttachmentChanges({
    desired: ctx.desired,
    actual: ctx.actual,
    observations: ctx.observations,
    touched: ctx.touched,
    ...(existing === undefined ? {} : { existing }),
  });
  for (const change of changes) await apply(ctx, change);
}

export async function reportAttachError(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName, message: string): Promise<void> {
  const ref = volumeAttachmentRef(ctx, volumeId, nodeName);
  await bestEffort(ctx, `report attach error of ${volumeId} on ${nodeName}`, () =>
    ctx.deps.cluster.upsertVolumeAttachment(ref, { attached: false, attachError: message }),
  );
}
