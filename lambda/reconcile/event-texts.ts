/**
 * Attach event texts as upstream's operation executor words them
 * (VolumeToAttach.GenerateMsg / GenerateError: `<prefix> for volume "<spec name>" <suffix>`).
 */
import { volumeSpecName } from '../core/events.js';
import type { ClusterEvent } from '../ports/cluster.js';
import { desiredAttachment, type PassContext } from './context.js';
import type { NodeName, VolumeId } from '../core/types.js';

export function attachSucceeded(specName: string): ClusterEvent {
  return { type: 'Normal', reason: 'SuccessfulAttachVolume', message: `AttachVolume.Attach succeeded for volume ${JSON.stringify(specName)}` };
}

export function attachFailed(specName: string, error: string): ClusterEvent {
  return { type: 'Warning', reason: 'FailedAttachVolume', message: `AttachVolume.Attach failed for volume ${JSON.stringify(specName)} : ${error}` };
}

/** The name the user wrote: the PV, or the pod's inline volume; the EBS id when neither is known. */
export function specNameOf(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName): string {
  const desired = desiredAttachment(ctx, volumeId, nodeName);
  return desired ? volumeSpecName(desired) : (ctx.pvNames.get(volumeId) ?? volumeId);
}
