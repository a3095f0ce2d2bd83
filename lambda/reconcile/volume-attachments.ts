/**
 * VolumeAttachment objects follow the actual state: attached → `status.attached` with the
 * devicePath the EBS node plugin needs; no attachment and not wanted → deleted; anything in
 * between is left as it is until EC2 settles.
 */
import type { NodeName, VolumeId } from '../core/types.js';
import type { VolumeAttachmentRef } from '../ports/cluster.js';
import { bestEffort, desiredAttachment, type PassContext } from './context.js';

export function volumeAttachmentRef(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName): VolumeAttachmentRef {
  const pvName = ctx.pvNames.get(volumeId);
  return pvName === undefined ? { volumeId, nodeName } : { volumeId, nodeName, pvName };
}

/**
 * Brings one (volume, node) VolumeAttachment in line with the actual state. `claimsAttached`: the
 * caller read the object and it says attached (a full pass knows; other callers do not).
 */
export async function syncVolumeAttachment(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName, claimsAttached = false): Promise<void> {
  if (ctx.desired.scope !== undefined && !ctx.desired.scope.volumes.includes(volumeId)) return;
  const attachment = ctx.actual.get(volumeId)?.attachments[nodeName];
  const ref = volumeAttachmentRef(ctx, volumeId, nodeName);
  if (attachment === undefined) {
    // Still wanted (an attach failed or waits): the VolumeAttachment keeps its attachError for the user,
    // but never goes on claiming an attachment that is gone (detached while a pod came back to the node).
    if (desiredAttachment(ctx, volumeId, nodeName) !== undefined) {
      if (claimsAttached) await bestEffort(ctx, `report ${volumeId} not attached on ${nodeName}`, () => ctx.deps.cluster.upsertVolumeAttachment(ref, { attached: false }));
      return;
    }
    await bestEffort(ctx, `delete VolumeAttachment of ${volumeId} on ${nodeName}`, () => ctx.deps.cluster.deleteVolumeAttachment(ref));
  } else if (attachment.state === 'attached' && attachment.device !== undefined) {
    const status = { attached: true as const, devicePath: attachment.device };
    await bestEffort(ctx, `report ${volumeId} attached on ${nodeName}`, () => ctx.deps.cluster.upsertVolumeAttachment(ref, status));
  }
}

export async function reportAttachError(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName, message: string): Promise<void> {
  const ref = volumeAttachmentRef(ctx, volumeId, nodeName);
  await bestEffort(ctx, `report attach error of ${volumeId} on ${nodeName}`, () =>
    ctx.deps.cluster.upsertVolumeAttachment(ref, { attached: false, attachError: message }),
  );
}
