/**
 * Carrying out the VolumeAttachment changes the core decides (core/volume-attachments.ts): after
 * each attach, detach or resolve for its pair, and at the end of a pass for every touched pair
 * (plus, in a full pass, whatever the listed objects show out of line). Writes are best effort.
 */
import type { NodeName, VolumeId } from '../../core/types.js';
import {
  indexVolumeAttachments,
  volumeAttachmentChange,
  volumeAttachmentChanges,
  type VolumeAttachmentChange,
} from '../../core/volume-attachments.js';
import type { VolumeAttachmentRef } from '../../ports/cluster.js';
import type { PassContext } from '../pass/state.js';
import { bestEffort } from '../pass/context.js';
import type { ControllerSide } from './side.js';

function volumeAttachmentRef(side: ControllerSide, volumeId: VolumeId, nodeName: NodeName): VolumeAttachmentRef {
  const pvName = side.pvNames.get(volumeId);
  return pvName === undefined ? { volumeId, nodeName } : { volumeId, nodeName, pvName };
}

async function apply(ctx: PassContext, side: ControllerSide, change: VolumeAttachmentChange): Promise<void> {
  const { volumeId, nodeName } = change;
  const ref = volumeAttachmentRef(side, volumeId, nodeName);
  const { cluster } = side;
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
export async function syncVolumeAttachment(ctx: PassContext, side: ControllerSide, volumeId: VolumeId, nodeName: NodeName): Promise<void> {
  const change = volumeAttachmentChange(ctx, volumeId, nodeName);
  if (change !== undefined) await apply(ctx, side, change);
}

/**
 * End of a pass: every pair touched this pass; with `listed` (a full pass that read every
 * VolumeAttachment) also every object out of line with the actual state.
 */
export async function reportVolumeAttachments(ctx: PassContext, side: ControllerSide): Promise<void> {
  const existing = side.listed === undefined ? undefined : indexVolumeAttachments(side.listed);
  const changes = volumeAttachmentChanges({
    desired: ctx.desired,
    actual: ctx.actual,
    observations: ctx.observations,
    touched: side.touched,
    ...(existing === undefined ? {} : { existing }),
  });
  for (const change of changes) await apply(ctx, side, change);
}

export async function reportAttachError(
  ctx: PassContext,
  side: ControllerSide,
  volumeId: VolumeId,
  nodeName: NodeName,
  message: string,
): Promise<void> {
  const ref = volumeAttachmentRef(side, volumeId, nodeName);
  await bestEffort(ctx, `report attach error of ${volumeId} on ${nodeName}`, () =>
    side.cluster.upsertVolumeAttachment(ref, { attached: false, attachError: message }),
  );
}
