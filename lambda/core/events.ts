/**
 * Event texts, word for word as upstream's attach/detach reconciler writes them
 * (reportMultiAttachError + VolumeToAttach.GenerateMsg: `<prefix> for volume "<spec name>" <suffix>`).
 * The spec name is the PV name, or the pod's volume name for an inline volume.
 */
import type { DesiredAttachment, PodRef } from './types.js';

export const FAILED_ATTACH_VOLUME = 'FailedAttachVolume';
export const SUCCESSFUL_ATTACH_VOLUME = 'SuccessfulAttachVolume';

/** Upstream's VolumeSpec.Name(): what the user wrote, not the EBS id. */
export function volumeSpecName(attachment: Pick<DesiredAttachment, 'source'>): string {
  return attachment.source.kind === 'pv' ? attachment.source.pvName : attachment.source.podVolumeName;
}

function volumeMessage(prefix: string, specName: string, suffix: string): string {
  return `${prefix} for volume ${JSON.stringify(specName)} ${suffix}`;
}

/**
 * The Multi-Attach error one scheduled pod sees. `podsElsewhere` are the pods that use the volume on
 * the nodes it is attached to; a pod only sees the names of pods in its own namespace.
 */
export function multiAttachMessage(specName: string, scheduledPod: PodRef, podsElsewhere: readonly PodRef[]): string {
  if (podsElsewhere.length === 0) {
    return volumeMessage('Multi-Attach error', specName, "Volume is already exclusively attached to one node and can't be attached to another");
  }
  const local = podsElsewhere.filter((pod) => pod.namespace === scheduledPod.namespace).map((pod) => pod.name);
  const others = podsElsewhere.length - local.length;
  let suffix: string;
  if (local.length > 0) {
    suffix = `Volume is already used by pod(s) ${local.join(', ')}`;
    if (others > 0) suffix = `${suffix} and ${others} pod(s) in different namespaces`;
  } else {
    suffix = `Volume is already used by ${others} pod(s) in different namespaces`;
  }
  return volumeMessage('Multi-Attach error', specName, suffix);
}
