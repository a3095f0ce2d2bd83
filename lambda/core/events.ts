/**
 * Event texts, word for word as upstream's attach/detach reconciler and operation executor write
 * them (reportMultiAttachError, and pkg/volume/util/operationexecutor's generateVolumeMsg:
 * `"%v for volume %q %v"`). The spec name is the PV name, or the pod's volume name for an inline
 * volume. Go's %q of the names Kubernetes allows (DNS names) is JSON's quoting.
 */
import type { DesiredAttachment, PodRef, VolumeEvent } from './types.js';

export const FAILED_ATTACH_VOLUME = 'FailedAttachVolume';
const SUCCESSFUL_ATTACH_VOLUME = 'SuccessfulAttachVolume';

/** Upstream's VolumeSpec.Name(): what the user wrote, not the EBS id. */
export function volumeSpecName(attachment: Pick<DesiredAttachment, 'source'>): string {
  return attachment.source.kind === 'pv' ? attachment.source.pvName : attachment.source.podVolumeName;
}

function volumeMessage(prefix: string, specName: string, suffix: string): string {
  return `${prefix} for volume ${JSON.stringify(specName)} ${suffix}`;
}

/** GenerateMsg with an empty suffix: upstream's success text ends in a space. */
export function attachSucceededEvent(specName: string): VolumeEvent {
  return { type: 'Normal', reason: SUCCESSFUL_ATTACH_VOLUME, message: volumeMessage('AttachVolume.Attach succeeded', specName, '') };
}

/** GenerateError: the suffix is `: <error>` (errSuffix), after the separating space. */
export function attachFailedEvent(specName: string, error: string): VolumeEvent {
  return { type: 'Warning', reason: FAILED_ATTACH_VOLUME, message: volumeMessage('AttachVolume.Attach failed', specName, `: ${error}`) };
}

/**
 * The event a pod gets for a volume source that says EBS but names no valid volume. Upstream's CSI
 * path attaches it anyway and the driver's error ends in the same `AttachVolume.Attach failed`
 * event (csi_attacher's verifyAttachmentStatus passes the VolumeAttachment's attachError on); we
 * never send EC2 a malformed id, so the error says what is wrong with it.
 */
export function invalidVolumeEvent(specName: string, raw: string, error: string): VolumeEvent {
  return attachFailedEvent(specName, `invalid EBS volume id ${JSON.stringify(raw)}: ${error}`);
}

/** The event kcm relays when the EBS CSI driver refuses the volume's capability (the sidecar's attachError, word for word). */
export function capabilityRefusedEvent(specName: string, refusal: string): VolumeEvent {
  return attachFailedEvent(specName, refusal);
}

/**
 * The Multi-Attach error one scheduled pod sees. `podsElsewhere` are the pods that use the volume on
 * the nodes it is attached to; a pod only sees the names of pods in its own namespace.
 */
export function multiAttachMessage(specName: string, scheduledPod: PodRef, podsElsewhere: readonly PodRef[]): string {
  if (podsElsewhere.length === 0) {
    return volumeMessage(
      'Multi-Attach error',
      specName,
      "Volume is already exclusively attached to one node and can't be attached to another",
    );
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
